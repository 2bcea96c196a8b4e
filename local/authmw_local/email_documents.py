"""E-mail bodies from a template's editor document: plain text and HTML, variables filled in.

    body = render_document(template["content"], {"projectDisplayName": "Acme", "magicLink": url})
    body.text, body.html

Two document shapes are understood:
- ProseMirror / TipTap (`{"type": "doc", "content": [...]}`, the shape of this service's
  defaults): paragraphs, headings, lists, blockquotes, rules, hard breaks, text with link marks;
- the e-mail builder of the Stack Auth dashboard (`{"root": {"data": {"childrenIds": [...]}},
  "<block id>": {"type": "Text" | "Heading" | "Button" | ..., "data": {"props": {...}}}}`).
Other shapes give the text of every `"text"` string found, one paragraph each. Styling of the
document (fonts, colours, images) is not rendered: the HTML is plain and readable.

`{{ name }}` is replaced in text and in link targets. Values are escaped in the HTML, and link
variables (`...Link`) become links. Only http(s) and mailto targets become `<a href>`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

_VARIABLE = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_SAFE_HREF = re.compile(r"^(https?://|mailto:)", re.IGNORECASE)
_BLOCK_LIMIT = 2000  # nodes; a document is small, this only bounds hostile input
_HEADING_TAGS = {1: "h1", 2: "h2", 3: "h3"}
_BUTTON_STYLE = (
    "display: inline-block; padding: 10px 18px; border-radius: 6px; background: #2f5bd3;"
    " color: #ffffff; text-decoration: none; font-weight: 600;"
)


@dataclass(frozen=True)
class Body:
    text: str
    html: str


@dataclass(frozen=True)
class _Span:
    text: str
    href: str | None = None


@dataclass(frozen=True)
class _Block:
    kind: str  # "p", "h1".."h3", "li", "quote", "button", "hr"
    spans: tuple[_Span, ...] = ()


def fill(text: str, variables: Mapping[str, str]) -> str:
    """`{{ name }}` replaced by its value; unknown names stay as written."""
    return _VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), text)


def render_document(document: Any, variables: Mapping[str, str]) -> Body:
    expanded = [_Block(b.kind, tuple(_expand(b.spans, variables))) for b in _blocks(document)]
    blocks = [block for block in expanded if block.kind == "hr" or _plain(block.spans).strip()]
    return Body(text=_to_text(blocks), html=_to_html(blocks))


# -- reading documents -------------------------------------------------------------------------


def _blocks(document: Any) -> list[_Block]:
    if isinstance(document, dict) and document.get("type") == "doc":
        found = list(_prosemirror(document.get("content"), "p"))
    elif isinstance(document, dict) and isinstance(document.get("root"), dict):
        found = list(_builder(document, document["root"], set()))
    else:
        found = [_Block("p", (_Span(text),)) for text in _all_texts(document)]
    return found[:_BLOCK_LIMIT]


def _prosemirror(nodes: Any, kind: str, depth: int = 0) -> Iterator[_Block]:
    if not isinstance(nodes, list) or depth > 20:
        return
    for node in nodes:
        if not isinstance(node, dict):
            continue
        node_type = node.get("type")
        if node_type in ("paragraph", "heading"):
            level = (node.get("attrs") or {}).get("level", 1) if node_type == "heading" else 0
            block_kind = _HEADING_TAGS.get(level, "h3") if node_type == "heading" else kind
            yield _Block(block_kind, tuple(_inline(node.get("content"))))
        elif node_type == "horizontalRule":
            yield _Block("hr")
        elif node_type == "listItem":
            yield from _prosemirror(node.get("content"), "li", depth + 1)
        elif node_type == "blockquote":
            yield from _prosemirror(node.get("content"), "quote", depth + 1)
        elif node_type == "text":
            yield _Block(kind, tuple(_inline([node])))
        else:  # doc, lists and unknown containers
            yield from _prosemirror(node.get("content"), kind, depth + 1)


def _inline(nodes: Any) -> Iterator[_Span]:
    if not isinstance(nodes, list):
        return
    for node in nodes:
        if not isinstance(node, dict):
            continue
        if node.get("type") == "hardBreak":
            yield _Span("\n")
        elif isinstance(node.get("text"), str):
            yield _Span(node["text"], _link_mark(node.get("marks")))


def _link_mark(marks: Any) -> str | None:
    for mark in marks if isinstance(marks, list) else []:
        if isinstance(mark, dict) and mark.get("type") == "link":
            href = (mark.get("attrs") or {}).get("href")
            return href if isinstance(href, str) else None
    return None


def _builder(document: dict[str, Any], block: Any, seen: set[str]) -> Iterator[_Block]:
    if not isinstance(block, dict):
        return
    data = _mapping(block.get("data"))
    props = _mapping(data.get("props"))
    block_type = block.get("type")
    text = props.get("text")
    if block_type == "Heading" and isinstance(text, str):
        level = {"h1": 1, "h2": 2}.get(str(props.get("level")), 3)
        yield _Block(_HEADING_TAGS[level], (_Span(text),))
    elif block_type == "Button" and isinstance(text, str):
        url = props.get("url")
        yield _Block("button", (_Span(text, url if isinstance(url, str) else None),))
    elif block_type == "Divider":
        yield _Block("hr")
    elif isinstance(text, str):
        yield _Block("p", (_Span(text),))
    elif block_type == "Html" and isinstance(props.get("contents"), str):
        yield _Block("p", (_Span(_strip_tags(props["contents"])),))
    children = [*_ids(data.get("childrenIds")), *_ids(props.get("childrenIds"))]
    for column in props.get("columns") or []:
        children.extend(_ids(column.get("childrenIds")) if isinstance(column, dict) else [])
    for child_id in children:
        if child_id not in seen:
            seen.add(child_id)
            yield from _builder(document, document.get(child_id), seen)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _ids(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _strip_tags(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", " ", markup))


def _all_texts(value: Any, depth: int = 0) -> Iterator[str]:
    if depth > 20:
        return
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            yield value["text"]
        for key, item in value.items():
            if key != "text":
                yield from _all_texts(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _all_texts(item, depth + 1)


# -- variables -------------------------------------------------------------------------------


def _expand(spans: tuple[_Span, ...], variables: Mapping[str, str]) -> Iterator[_Span]:
    """Fill the variables of each span; a link variable outside a link becomes its own link."""
    for span in spans:
        href = fill(span.href, variables) if span.href is not None else None
        position = 0
        for match in _VARIABLE.finditer(span.text):
            yield _Span(span.text[position : match.start()], href)
            name = match.group(1)
            value = variables.get(name, match.group(0))
            is_link = name.endswith("Link") and name in variables
            yield _Span(value, href if href is not None or not is_link else value)
            position = match.end()
        yield _Span(span.text[position:], href)


# -- writing ---------------------------------------------------------------------------------


def _plain(spans: tuple[_Span, ...]) -> str:
    return "".join(span.text for span in spans)


def _to_text(blocks: list[_Block]) -> str:
    paragraphs = []
    for block in blocks:
        if block.kind == "hr":
            paragraphs.append("---")
            continue
        line = "".join(_text_span(span) for span in block.spans).strip()
        paragraphs.append({"li": "- ", "quote": "> "}.get(block.kind, "") + line)
    return "\n\n".join(paragraphs) + "\n"


def _text_span(span: _Span) -> str:
    if span.href is None or span.href == span.text or not span.text.strip():
        return span.text
    return f"{span.text} ({span.href})"


def _to_html(blocks: list[_Block]) -> str:
    parts = []
    for block in blocks:
        if block.kind == "hr":
            parts.append("<hr>")
            continue
        style = _BUTTON_STYLE if block.kind == "button" else ""
        inner = "".join(_html_span(span, style) for span in block.spans).strip()
        tag = {"li": "p", "quote": "blockquote", "button": "p"}.get(block.kind, block.kind)
        prefix = "&bull; " if block.kind == "li" else ""
        parts.append(f"<{tag}>{prefix}{inner}</{tag}>")
    return (
        '<!doctype html>\n<html><head><meta charset="utf-8"></head>\n'
        '<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #111;">\n'
        + "\n".join(parts)
        + "\n</body></html>\n"
    )


def _html_span(span: _Span, style: str = "") -> str:
    text = html.escape(span.text).replace("\n", "<br>")
    if span.href is None or not _SAFE_HREF.match(span.href.strip()) or not span.text:
        return text
    style_attribute = f' style="{style}"' if style else ""
    return f'<a href="{html.escape(span.href.strip(), quote=True)}"{style_attribute}>{text}</a>'
