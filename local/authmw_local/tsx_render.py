"""A small interpreter for the TSX of API 2.8's e-mail templates and themes (service-api B14.4).

The real service compiles a template's `tsx_source` with esbuild and renders it with React Email
in a sandbox. The local service must run without Node, so it reads a well-defined subset of TSX
itself and renders it to HTML; anything outside the subset is a `TsxError` naming what is not
supported (the routes answer it as EMAIL_RENDERING_ERROR, the error the service gives a template
that fails to render). The subset (docs/local-service.md, "E-mail templates on 2.8"):

- Module: `import ... from "<module>"` of `@react-email/components`, `@stackframe/emails`,
  `arktype` and `react`; `export const NAME = <expression>` (evaluated only when used, so
  `variablesSchema = type({...})` is accepted and ignored); `function` declarations (the entry
  point `EmailTemplate` or `EmailTheme`, and helper components used as JSX tags);
  `EmailTemplate.PreviewVariables = {...}` / `EmailTheme.PreviewProps = {...}`.
- Statements in a function: `const`/`let` declarations, `if (...) {...} else {...}`, `return`,
  `throw new Error("...")`. No loops.
- Expressions: string, number, template (`` `Hi ${user.displayName}` ``), `true`/`false`/`null`/
  `undefined`, names, `a.b`, `a?.b`, `a[b]`, object and array literals (with `...spread`),
  `+ - * /`, comparisons, `! && || ??`, `c ? a : b`, arrow functions, the methods `map`, `filter`,
  `join`, `includes`, `toUpperCase`, `toLowerCase`, `trim`, and TypeScript's `as T`,
  `satisfies T`, `x!` and parameter types (skipped).
- JSX: HTML elements (not `script`, `iframe`, `object`, `embed`), fragments, the React Email
  components of `COMPONENTS` and `Subject`, `NotificationCategory`, `ProjectLogo`. `className`
  stays a `class` attribute (Tailwind classes are not turned into inline styles); `style`
  objects become inline CSS; event handlers, `key` and `ref` are dropped; `javascript:` URLs are
  refused.

Rendering is bounded (nesting depth, element count, output size), so no template can hang or
exhaust the service.
"""

from __future__ import annotations

import functools
import html
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

ALLOWED_MODULES = ("@react-email/components", "@stackframe/emails", "arktype", "react")
FORBIDDEN_TAGS = frozenset({"script", "iframe", "object", "embed", "frame", "frameset", "applet"})
MAX_DEPTH = 200
MAX_ELEMENTS = 20_000
MAX_OUTPUT = 1_000_000


class TsxError(Exception):
    """The source cannot be rendered: a syntax error, something outside the subset, or an error
    the template threw. The message names the problem (and the line and column when known)."""

    def __init__(self, message: str, *, problem: str | None = None, at: int | None = None) -> None:
        super().__init__(message)
        #: For an error found while reading the source: the problem alone and where it is.
        self.problem = problem
        self.at = at


def build_failure(errors: list[tuple[str, int, int, str]]) -> TsxError:
    """Syntax errors as the service's bundler (esbuild) reports them, one line each:
    `virtual:/<file>:<line>:<column>: ERROR: <problem>` (line from 1, column from 0)."""
    count = f"{len(errors)} error{'s' if len(errors) != 1 else ''}"
    lines = [f"virtual:/{file}:{line}:{column}: ERROR: {problem}" for file, line, column, problem in errors]
    return TsxError(f"Build failed with {count}:\n" + "\n".join(lines))


class _Undefined:
    def __repr__(self) -> str:
        return "undefined"


UNDEFINED: Any = _Undefined()


@dataclass
class Element:
    tag: str | Closure
    props: dict[str, Any]
    children: list[Any]


@dataclass
class Closure:
    params: list[Any]
    body: Any  # an expression node, or ("block", statements)
    scope: dict[str, Any]
    name: str = "anonymous"


@dataclass
class _Raw:
    """Markup already rendered (the template's HTML inside its theme)."""

    markup: str


@dataclass
class Rendered:
    """What rendering found: the HTML, its plain-text form, and the values of `<Subject>` and
    `<NotificationCategory>` when the source rendered them."""

    html: str
    text: str
    subject: str | None = None
    notification_category: str | None = None


# ---------------------------------------------------------------------------------------------
# Parsing

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NUMBER = re.compile(r"(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_PUNCT = (
    "...", "===", "!==", "?.", "??", "=>", "==", "!=", "<=", ">=", "&&", "||",
    "{", "}", "(", ")", "[", "]", ";", ",", "<", ">", "+", "-", "*", "/", "%", "!", "?", ":", ".", "=",
)  # fmt: skip
_RESERVED = frozenset({"const", "let", "var", "return", "if", "else", "function", "throw", "new", "export", "import"})


class _Parser:
    def __init__(self, source: str, file: str = "template.tsx") -> None:
        self.s = source
        self.i = 0
        #: The file the source stands for in messages (the service bundles template.tsx and theme.tsx).
        self.file = file
        #: Syntax errors read past, as esbuild does, to be reported with the one that stops reading.
        self.recovered: list[tuple[int, str]] = []

    # -- low level
    def where(self, at: int | None = None) -> str:
        at = self.i if at is None else at
        line = self.s.count("\n", 0, at) + 1
        column = at - (self.s.rfind("\n", 0, at) + 1) + 1
        return f"line {line}, column {column}"

    def fail(self, message: str, at: int | None = None) -> TsxError:
        at = self.i if at is None else at
        return TsxError(f"{message} ({self.file} {self.where(at)})", problem=message, at=at)

    def position(self, at: int) -> tuple[int, int]:
        """(line from 1, column from 0) of an offset, as esbuild counts them."""
        return self.s.count("\n", 0, at) + 1, at - (self.s.rfind("\n", 0, at) + 1)

    def build_failure(self, last: TsxError | None) -> TsxError:
        """The syntax errors read past, and `last` (the one that stopped reading, if any), in the
        bundler's words; an error without a position is not a syntax error and stays as it is."""
        found = list(self.recovered)
        if last is not None:
            if last.problem is None or last.at is None:
                return last
            found.append((last.at, last.problem))
        return build_failure([(self.file, *self.position(at), problem) for at, problem in found])

    def skip_space(self) -> None:
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c.isspace():
                self.i += 1
            elif s.startswith("//", self.i):
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
            elif s.startswith("/*", self.i):
                end = s.find("*/", self.i + 2)
                if end < 0:
                    raise self.fail("A comment is not closed")
                self.i = end + 2
            else:
                break

    def peek(self, text: str) -> bool:
        self.skip_space()
        if not self.s.startswith(text, self.i):
            return False
        if _IDENT.fullmatch(text):  # a word must end there
            after = self.i + len(text)
            return after >= len(self.s) or not (self.s[after].isalnum() or self.s[after] in "_$")
        return True

    def accept(self, text: str) -> bool:
        if self.peek(text):
            self.i += len(text)
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            found = self.s[self.i : self.i + 12] or "the end of the file"
            raise self.fail(f'Expected "{text}" but found "{found}"')

    def ident(self) -> str:
        self.skip_space()
        m = _IDENT.match(self.s, self.i)
        if not m:
            found = self.s[self.i : self.i + 12] or "the end of the file"
            raise self.fail(f'Expected a name but found "{found}"')
        self.i = m.end()
        return m.group()

    def at_end(self) -> bool:
        self.skip_space()
        return self.i >= len(self.s)

    # -- module
    def module(self) -> dict[str, Any]:
        names: dict[str, Any] = {}
        extras: dict[str, Any] = {}
        exports: set[str] = set()
        while not self.at_end():
            start = self.i
            if self.accept(";"):
                continue
            if self.accept("import"):
                self.import_statement()
                continue
            exported = self.accept("export")
            self.accept("default")
            if self.accept("function"):
                name = self.ident()
                names[name] = self.function_rest(name)
                if exported:
                    exports.add(name)
            elif self.peek("const") or self.peek("let") or self.peek("var"):
                for name, node in self.declaration():
                    names[name] = ("lazy", node)
                    if exported:
                        exports.add(name)
            elif self.peek("type") or self.peek("interface"):
                raise self.fail("Type declarations are not supported by the local service's TSX subset")
            else:
                target = self.ident()
                self.expect(".")
                prop = self.ident()
                self.expect("=")
                extras[f"{target}.{prop}"] = self.expression_with_types()
            if self.i == start:
                raise self.fail("Unexpected text")
        names["__extras__"] = extras
        names["__exports__"] = exports
        return names

    def import_statement(self) -> None:
        self.skip_space()
        start = self.i
        quote = re.compile(r"""from\s*(["'])([^"']*)\1|^\s*(["'])([^"']*)\3""")
        m = quote.search(self.s, self.i)
        if not m:
            raise self.fail("An import names no module")
        module = m.group(2) or m.group(4) or ""
        if module not in ALLOWED_MODULES:
            raise self.fail(
                f'The module "{module}" cannot be imported: the local service renders templates importing only '
                + ", ".join(ALLOWED_MODULES),
                start,
            )
        self.i = m.end()
        self.accept(";")

    def declaration(self) -> list[tuple[str, Any]]:
        self.ident()  # const / let / var
        out = []
        while True:
            name = self.ident()
            if self.accept(":"):
                self.skip_type()
            self.expect("=")
            out.append((name, self.expression_with_types()))
            if not self.accept(","):
                break
        self.accept(";")
        return out

    def function_rest(self, name: str) -> Closure:
        params = self.params()
        if self.accept(":"):
            self.skip_type()
        return Closure(params, ("block", self.block()), {}, name)

    def params(self) -> list[Any]:
        self.expect("(")
        params: list[Any] = []
        while not self.accept(")"):
            if self.accept("{"):
                fields: list[tuple[str, Any]] = []
                while not self.accept("}"):
                    key = self.ident()
                    default = self.expression() if self.accept("=") else None
                    fields.append((key, default))
                    if not self.accept(","):
                        self.expect("}")
                        break
                params.append(("destructure", fields))
            else:
                params.append(("name", self.ident()))
            if self.accept(":"):
                self.skip_type()
            if not self.accept(","):
                self.expect(")")
                break
        return params

    def skip_type(self) -> None:
        """A TypeScript type (skipped): names, dots, generics, `typeof`, unions, arrays, object
        types and string literals."""
        while True:
            self.skip_space()
            if self.accept("typeof") or self.accept("keyof"):
                continue
            if self.peek("{"):
                self.skip_balanced("{", "}")
            elif self.peek("("):
                self.skip_balanced("(", ")")
                if self.accept("=>"):
                    continue
            elif self.i < len(self.s) and self.s[self.i] in "\"'":
                self.string_literal()
            else:
                self.ident()
                while self.accept("."):
                    self.ident()
                if self.peek("<"):
                    self.skip_balanced("<", ">")
            while self.peek("[]"):
                self.i += 2
            if not (self.accept("|") or self.accept("&")):
                return

    def skip_balanced(self, open_: str, close: str) -> None:
        self.expect(open_)
        depth = 1
        while depth:
            if self.i >= len(self.s):
                raise self.fail(f'"{open_}" is not closed')
            c = self.s[self.i]
            if c in "\"'`":
                self.string_literal() if c != "`" else self.template_literal()
                continue
            depth += (c == open_) - (c == close)
            self.i += 1

    def block(self) -> list[Any]:
        self.expect("{")
        statements = []
        while not self.accept("}"):
            if self.at_end():
                raise self.fail("A block is not closed")
            statements.append(self.statement())
        return statements

    def statement(self) -> Any:
        at = self.i
        if self.accept(";"):
            return ("empty",)
        if self.peek("const") or self.peek("let") or self.peek("var"):
            return ("declare", self.declaration())
        if self.accept("return"):
            value = None if self.peek(";") or self.peek("}") else self.expression_with_types()
            self.accept(";")
            return ("return", value)
        if self.accept("throw"):
            value = self.expression()
            self.accept(";")
            return ("throw", value, at)
        if self.accept("if"):
            self.expect("(")
            condition = self.expression()
            self.expect(")")
            then = self.block() if self.peek("{") else [self.statement()]
            otherwise: list[Any] = []
            if self.accept("else"):
                otherwise = self.block() if self.peek("{") else [self.statement()]
            return ("if", condition, then, otherwise)
        if self.accept("function"):
            name = self.ident()
            return ("declare", [(name, ("closure", self.function_rest(name)))])
        for word in ("for", "while", "do", "switch", "try", "class"):
            if self.peek(word):
                raise self.fail(f'"{word}" is not supported by the local service\'s TSX subset')
        value = self.expression_with_types()
        self.accept(";")
        return ("expr", value, at)

    # -- expressions
    def expression_with_types(self) -> Any:
        node = self.expression()
        while self.peek("as") or self.peek("satisfies"):
            self.ident()
            if not self.accept("const"):
                self.skip_type()
        return node

    def expression(self) -> Any:
        at = self.i
        arrow = self.try_arrow()
        if arrow is not None:
            return arrow
        node = self.binary(0)
        if self.accept("?"):
            then = self.expression()
            self.expect(":")
            otherwise = self.expression()
            return ("cond", node, then, otherwise)
        if self.peek("=") and not self.peek("==") and not self.peek("=>"):
            raise self.fail("Assignments are not supported by the local service's TSX subset", at)
        return node

    def try_arrow(self) -> Any:
        self.skip_space()
        start = self.i
        m = _IDENT.match(self.s, self.i)
        if m and m.group() not in _RESERVED:
            self.i = m.end()
            if self.accept("=>"):
                return self.arrow_body([("name", m.group())])
            self.i = start
            return None
        if self.peek("("):
            try:
                params = self.params()
                if self.accept(":"):
                    self.skip_type()
                if self.accept("=>"):
                    return self.arrow_body(params)
            except TsxError:
                pass
            self.i = start
        return None

    def arrow_body(self, params: list[Any]) -> Any:
        body = ("block", self.block()) if self.peek("{") else self.expression()
        return ("closure", Closure(params, body, {}, "arrow function"))

    _LEVELS: tuple[tuple[str, ...], ...] = (
        ("??",),
        ("||",),
        ("&&",),
        ("===", "!==", "==", "!="),
        ("<=", ">=", "<", ">"),
        ("+", "-"),
        ("*", "/", "%"),
    )

    def binary(self, level: int) -> Any:
        if level == len(self._LEVELS):
            return self.unary()
        node = self.binary(level + 1)
        while True:
            self.skip_space()
            op = next((o for o in self._LEVELS[level] if self.s.startswith(o, self.i)), None)
            if op is None:
                return node
            self.i += len(op)
            node = ("binary", op, node, self.binary(level + 1))

    def unary(self) -> Any:
        if self.accept("!"):
            return ("not", self.unary())
        if self.accept("-"):
            return ("neg", self.unary())
        if self.accept("typeof"):
            return ("typeof", self.unary())
        return self.postfix()

    def postfix(self) -> Any:
        node = self.primary()
        while True:
            self.skip_space()
            if self.s.startswith("?.(", self.i) or self.s.startswith("?.[", self.i):
                raise self.fail("Optional calls and indexes are not supported by the local service's TSX subset")
            if self.accept("?."):
                node = ("member", node, ("str", self.ident()), True)
            elif self.s.startswith(".", self.i) and not self.s.startswith("...", self.i):
                self.i += 1
                node = ("member", node, ("str", self.ident()), False)
            elif self.accept("["):
                key = self.expression()
                self.expect("]")
                node = ("member", node, key, False)
            elif self.peek("("):
                at = self.i
                self.expect("(")
                args = []
                while not self.accept(")"):
                    args.append(self.expression())
                    if not self.accept(","):
                        self.expect(")")
                        break
                node = ("call", node, args, at)
            elif self.s.startswith("!", self.i) and not self.s.startswith("!=", self.i):
                self.i += 1  # TypeScript's non-null assertion
            else:
                return node

    def primary(self) -> Any:
        self.skip_space()
        if self.i >= len(self.s):
            raise self.fail("Unexpected end of file")
        c = self.s[self.i]
        if c in "\"'":
            return ("str", self.string_literal())
        if c == "`":
            return self.template_literal()
        m = _NUMBER.match(self.s, self.i)
        if m and (c.isdigit() or c == "."):
            self.i = m.end()
            return ("num", float(int(m.group(), 16)) if m.group()[:2].lower() == "0x" else float(m.group()))
        if c == "(":
            self.i += 1
            node = self.expression_with_types()
            self.expect(")")
            return node
        if c == "[":
            self.i += 1
            items: list[Any] = []
            while not self.accept("]"):
                items.append(("spread", self.expression()) if self.accept("...") else self.expression())
                if not self.accept(","):
                    self.expect("]")
                    break
            return ("array", items)
        if c == "{":
            return self.object_literal()
        if c == "<":
            return self.jsx()
        if self.accept("new"):
            at = self.i
            name = self.ident()
            if name != "Error":
                raise self.fail(f'"new {name}" is not supported by the local service\'s TSX subset', at)
            self.expect("(")
            message = ("str", "") if self.peek(")") else self.expression()
            self.expect(")")
            return ("error", message)
        if self.accept("function"):
            name = self.ident() if not self.peek("(") else "anonymous"
            return ("closure", self.function_rest(name))
        at = self.i
        name = self.ident()
        literals = {"true": True, "false": False, "null": None, "undefined": UNDEFINED}
        if name in literals:
            return ("lit", literals[name])
        if name in _RESERVED:
            raise self.fail(f'"{name}" cannot start an expression', at)
        return ("name", name, at)

    def object_literal(self) -> Any:
        self.expect("{")
        entries: list[Any] = []
        while not self.accept("}"):
            if self.accept("..."):
                entries.append(("spread", self.expression()))
            else:
                self.skip_space()
                if self.s[self.i] in "\"'":
                    key = self.string_literal()
                elif self.accept("["):
                    raise self.fail("Computed object keys are not supported by the local service's TSX subset")
                else:
                    m = _IDENT.match(self.s, self.i) or _NUMBER.match(self.s, self.i)
                    if not m:
                        raise self.fail("Expected an object key")
                    self.i = m.end()
                    key = m.group()
                if self.accept(":"):
                    entries.append(("entry", key, self.expression()))
                else:
                    entries.append(("entry", key, ("name", key, self.i)))
            if not self.accept(","):
                self.expect("}")
                break
        return ("object", entries)

    def string_literal(self) -> str:
        quote = self.s[self.i]
        self.i += 1
        out: list[str] = []
        while True:
            if self.i >= len(self.s) or self.s[self.i] == "\n":
                raise self.fail("A string is not closed")
            c = self.s[self.i]
            if c == quote:
                self.i += 1
                return "".join(out)
            if c == "\\":
                out.append(self.escape())
            else:
                out.append(c)
                self.i += 1

    def escape(self) -> str:
        c = self.s[self.i + 1 : self.i + 2]
        self.i += 2
        simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "\n": ""}
        if c in simple:
            return simple[c]
        if c == "u":
            if self.s.startswith("{", self.i):
                end = self.s.index("}", self.i)
                code = int(self.s[self.i + 1 : end], 16)
                self.i = end + 1
            else:
                code = int(self.s[self.i : self.i + 4], 16)
                self.i += 4
            return chr(code)
        if c == "x":
            code = int(self.s[self.i : self.i + 2], 16)
            self.i += 2
            return chr(code)
        return c

    def template_literal(self) -> Any:
        self.i += 1
        parts: list[Any] = []
        text: list[str] = []
        while True:
            if self.i >= len(self.s):
                raise self.fail("A template string is not closed")
            c = self.s[self.i]
            if c == "`":
                self.i += 1
                parts.append(("str", "".join(text)))
                return ("template", parts)
            if c == "\\":
                text.append(self.escape())
            elif self.s.startswith("${", self.i):
                self.i += 2
                parts.append(("str", "".join(text)))
                text = []
                parts.append(self.expression_with_types())
                self.expect("}")
            else:
                text.append(c)
                self.i += 1

    # -- JSX
    def jsx(self) -> Any:
        at = self.i
        self.expect("<")
        if self.accept(">"):
            children = self.jsx_children(None, at)
            return ("jsx", None, [], children, at)
        name = self.jsx_name()
        attrs: list[Any] = []
        while True:
            self.skip_space()
            if self.accept("/>"):
                return ("jsx", name, attrs, [], at)
            if self.accept(">"):
                break
            if self.accept("{"):
                self.expect("...")
                attrs.append(("spread", self.expression()))
                self.expect("}")
                continue
            attr_at = self.i
            m = re.compile(r"[A-Za-z_$][A-Za-z0-9_$:-]*").match(self.s, self.i)
            if not m:
                found = self.s[self.i : self.i + 1] or "the end of the file"
                raise self.fail(f'Unexpected "{found}" in the <{name}> tag', attr_at)
            self.i = m.end()
            if self.accept("="):
                self.skip_space()
                if self.s[self.i : self.i + 1] in ("'", '"'):
                    value: Any = ("str", html.unescape(self.jsx_attr_string()))
                elif self.accept("{"):
                    value = self.expression_with_types()
                    self.expect("}")
                elif self.peek("<"):
                    value = self.jsx()
                else:
                    raise self.fail(f"The value of {m.group()} must be a string or {{expression}}")
            else:
                value = ("lit", True)
            attrs.append(("attr", m.group(), value))
        children = self.jsx_children(name, at)
        return ("jsx", name, attrs, children, at)

    def jsx_attr_string(self) -> str:
        quote = self.s[self.i]
        end = self.s.find(quote, self.i + 1)
        if end < 0:
            raise self.fail("An attribute value is not closed")
        value = self.s[self.i + 1 : end]
        self.i = end + 1
        return value

    def jsx_name(self) -> str:
        self.skip_space()
        m = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*").match(self.s, self.i)
        if not m:
            raise self.fail("Expected a tag name after <")
        self.i = m.end()
        return m.group()

    def jsx_children(self, name: str | None, at: int) -> list[Any]:
        children: list[Any] = []
        label = f"<{name}>" if name else "fragment <>"
        while True:
            if self.i >= len(self.s):
                closing = f'a closing "{name}" tag' if name else "a closing fragment tag"
                raise self.fail(f"Unexpected end of file before {closing}", len(self.s))
            c = self.s[self.i]
            if self.s.startswith("</", self.i):
                self.i += 2
                closing = "" if self.peek(">") else self.jsx_name()
                if closing != (name or ""):
                    raise self.fail(f"Expected the closing tag of {label} but found </{closing}>")
                self.expect(">")
                return children
            if c == "<":
                children.append(self.jsx())
            elif c == "{":
                self.i += 1
                self.skip_space()
                if self.accept("}"):
                    continue  # {/* a comment */}
                children.append(self.expression_with_types())
                self.expect("}")
            elif c in "}>":
                # esbuild reports this and reads on, the character taken as text
                self.recovered.append((self.i, f'The character "{c}" is not valid inside a JSX element'))
                children.append(("str", c))
                self.i += 1
            else:
                end = self.i
                while end < len(self.s) and self.s[end] not in "<{}>":
                    end += 1
                text = _jsx_text(self.s[self.i : end])
                self.i = end
                if text:
                    children.append(("str", text))


def _jsx_text(raw: str) -> str:
    """JSX text as React reads it: lines trimmed where they meet a line break, blank lines
    dropped, the rest joined by one space; HTML entities decoded."""
    lines = raw.split("\n")
    kept = []
    for number, line in enumerate(lines):
        if number > 0:
            line = line.lstrip(" \t\r")
        if number < len(lines) - 1:
            line = line.rstrip(" \t\r")
        if line:
            kept.append(line)
    return html.unescape(" ".join(kept))


# ---------------------------------------------------------------------------------------------
# Evaluation


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


@dataclass
class _Budget:
    depth: int = 0
    elements: int = 0
    captured: dict[str, str] = field(default_factory=dict)


def to_js_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, float | int):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return str(int(value)) if float(value).is_integer() and abs(value) < 1e21 else repr(float(value))
    if isinstance(value, list):
        return ",".join("" if v is None or v is UNDEFINED else to_js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return "[object]"


def truthy(value: Any) -> bool:
    if value is None or value is UNDEFINED or value is False:
        return False
    if isinstance(value, str):
        return value != ""
    if isinstance(value, float | int) and not isinstance(value, bool):
        return value != 0 and not math.isnan(value)
    return True


def _type_name(value: Any) -> str:
    if isinstance(value, Closure):
        return "function"
    return "undefined" if value is UNDEFINED else "null" if value is None else type(value).__name__


class _Evaluator:
    def __init__(self, module: dict[str, Any], budget: _Budget) -> None:
        self.module = module
        self.budget = budget
        self.resolving: set[str] = set()

    def lookup(self, name: str, scope: Mapping[str, Any], at: int, parser: _Parser) -> Any:
        if name in scope:
            return scope[name]
        if name in self.module and not name.startswith("__"):
            value = self.module[name]
            if isinstance(value, tuple) and value[0] == "lazy":
                if name in self.resolving:
                    raise parser.fail(f"{name} refers to itself", at)
                self.resolving.add(name)
                value = self.eval(value[1], {}, parser)
                self.resolving.discard(name)
                self.module[name] = value
            return value
        if name in COMPONENTS or name in ("Fragment", "React"):
            return ("component", name)
        raise parser.fail(f"{name} is not defined", at)

    def eval(self, node: Any, scope: dict[str, Any], p: _Parser) -> Any:
        kind = node[0]
        if kind == "str":
            return node[1]
        if kind == "num":
            return node[1]
        if kind == "lit":
            return node[1]
        if kind == "name":
            return self.lookup(node[1], scope, node[2], p)
        if kind == "template":
            return "".join(to_js_string(self.eval(part, scope, p)) for part in node[1])
        if kind == "member":
            target = self.eval(node[1], scope, p)
            key = self.eval(node[2], scope, p)
            if node[3] and (target is None or target is UNDEFINED):
                return UNDEFINED
            return self.member(target, key, p)
        if kind == "call":
            return self.call(node, scope, p)
        if kind == "cond":
            return self.eval(node[2] if truthy(self.eval(node[1], scope, p)) else node[3], scope, p)
        if kind == "not":
            return not truthy(self.eval(node[1], scope, p))
        if kind == "neg":
            return -self.number(self.eval(node[1], scope, p))
        if kind == "typeof":
            value = self.eval(node[1], scope, p)
            if isinstance(value, str):
                return "string"
            if isinstance(value, bool):
                return "boolean"
            if isinstance(value, float | int):
                return "number"
            if value is UNDEFINED:
                return "undefined"
            return "function" if isinstance(value, Closure) else "object"
        if kind == "binary":
            return self.binary(node, scope, p)
        if kind == "array":
            out: list[Any] = []
            for item in node[1]:
                if item[0] == "spread":
                    spread = self.eval(item[1], scope, p)
                    if not isinstance(spread, list):
                        raise TsxError(f"Only an array can be spread into an array, not {_type_name(spread)}")
                    out.extend(spread)
                else:
                    out.append(self.eval(item, scope, p))
            return out
        if kind == "object":
            obj: dict[str, Any] = {}
            for entry in node[1]:
                if entry[0] == "spread":
                    spread = self.eval(entry[1], scope, p)
                    if isinstance(spread, dict):
                        obj.update(spread)
                else:
                    obj[entry[1]] = self.eval(entry[2], scope, p)
            return obj
        if kind == "closure":
            closure = node[1]
            return Closure(closure.params, closure.body, scope, closure.name)
        if kind == "error":
            return ("error", to_js_string(self.eval(node[1], scope, p)))
        if kind == "jsx":
            return self.jsx(node, scope, p)
        raise TsxError(f"Cannot evaluate {kind}")

    def number(self, value: Any) -> float:
        if isinstance(value, bool):
            return float(value)
        if isinstance(value, float | int):
            return float(value)
        if value is None:
            return 0.0
        if isinstance(value, str):
            try:
                return float(value.strip() or 0)
            except ValueError:
                return math.nan
        return math.nan

    def binary(self, node: Any, scope: dict[str, Any], p: _Parser) -> Any:
        op = node[1]
        left = self.eval(node[2], scope, p)
        if op == "&&":
            return self.eval(node[3], scope, p) if truthy(left) else left
        if op == "||":
            return left if truthy(left) else self.eval(node[3], scope, p)
        if op == "??":
            return self.eval(node[3], scope, p) if left is None or left is UNDEFINED else left
        right = self.eval(node[3], scope, p)
        if op == "+":
            if isinstance(left, str | list | dict) or isinstance(right, str | list | dict):
                result = to_js_string(left) + to_js_string(right)
                if len(result) > MAX_OUTPUT:
                    raise TsxError("The template builds a string longer than the local service renders")
                return result
            return self.number(left) + self.number(right)
        if op in ("===", "!=="):
            same = self.strict_equal(left, right)
            return same if op == "===" else not same
        if op in ("==", "!="):
            loose = self.strict_equal(left, right) or (
                (left is None or left is UNDEFINED) and (right is None or right is UNDEFINED)
            )
            return loose if op == "==" else not loose
        if op in ("<", ">", "<=", ">="):
            if isinstance(left, str) and isinstance(right, str):
                a, b = left, right
            else:
                a, b = self.number(left), self.number(right)  # type: ignore[assignment]
            return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
        a_num, b_num = self.number(left), self.number(right)
        if op == "-":
            return a_num - b_num
        if op == "*":
            return a_num * b_num
        if b_num == 0:
            return math.nan if a_num == 0 or op == "%" else math.copysign(math.inf, a_num)
        return a_num / b_num if op == "/" else math.fmod(a_num, b_num)

    @staticmethod
    def strict_equal(a: Any, b: Any) -> bool:
        if isinstance(a, bool) or isinstance(b, bool):
            return a is b
        if isinstance(a, float | int) and isinstance(b, float | int):
            return a == b
        if isinstance(a, str) and isinstance(b, str):
            return a == b
        return a is b

    def member(self, target: Any, key: Any, p: _Parser) -> Any:
        name = to_js_string(key)
        if target is None or target is UNDEFINED:
            raise TsxError(f"TypeError: Cannot read properties of {to_js_string(target)} (reading '{name}')")
        if isinstance(target, dict):
            return target.get(name, UNDEFINED)
        if isinstance(target, str | list):
            if name == "length":
                return float(len(target))
            if isinstance(key, float) and key.is_integer() and 0 <= key < len(target):
                return target[int(key)]
            if name in _METHODS:
                return ("method", target, name)
            return UNDEFINED
        return UNDEFINED

    def call(self, node: Any, scope: dict[str, Any], p: _Parser) -> Any:
        callee = self.eval(node[1], scope, p)
        args = [self.eval(arg, scope, p) for arg in node[2]]
        if isinstance(callee, tuple) and callee[0] == "method":
            return self.method(callee[1], callee[2], args, p)
        if isinstance(callee, Closure):
            return self.invoke(callee, args, p)
        name = node[1][1] if node[1][0] == "name" else "this value"
        raise p.fail(f"{name} cannot be called by the local service's TSX subset", node[3])

    def method(self, target: Any, name: str, args: list[Any], p: _Parser) -> Any:
        if isinstance(target, str):
            if name == "toUpperCase":
                return target.upper()
            if name == "toLowerCase":
                return target.lower()
            if name == "trim":
                return target.strip()
            if name == "includes":
                return bool(args) and to_js_string(args[0]) in target
        if isinstance(target, list):
            if name == "join":
                sep = "," if not args or args[0] is UNDEFINED else to_js_string(args[0])
                return sep.join("" if v is None or v is UNDEFINED else to_js_string(v) for v in target)
            if name == "includes":
                return bool(args) and any(self.strict_equal(v, args[0]) for v in target)
            if name in ("map", "filter"):
                if not args or not isinstance(args[0], Closure):
                    raise TsxError(f"{name} needs a function")
                results = [self.invoke(args[0], [v, float(i)], p) for i, v in enumerate(target)]
                if name == "map":
                    return results
                return [v for v, keep in zip(target, results, strict=True) if truthy(keep)]
        raise TsxError(f"{name} is not supported on {_type_name(target)} by the local service's TSX subset")

    def invoke(self, closure: Closure, args: list[Any], p: _Parser) -> Any:
        self.budget.depth += 1
        if self.budget.depth > MAX_DEPTH:
            raise TsxError("Maximum call stack size exceeded")
        try:
            scope = dict(closure.scope)
            for index, param in enumerate(closure.params):
                value = args[index] if index < len(args) else UNDEFINED
                if param[0] == "name":
                    scope[param[1]] = value
                else:
                    source = value if isinstance(value, dict) else {}
                    if value is None or value is UNDEFINED:
                        raise TsxError(f"TypeError: Cannot destructure {to_js_string(value)}")
                    for key, default in param[1]:
                        got = source.get(key, UNDEFINED)
                        scope[key] = self.eval(default, scope, p) if got is UNDEFINED and default else got
            if closure.body[0] != "block":
                return self.eval(closure.body, scope, p)
            try:
                self.run(closure.body[1], scope, p)
            except _Return as done:
                return done.value
            return UNDEFINED
        finally:
            self.budget.depth -= 1

    def run(self, statements: list[Any], scope: dict[str, Any], p: _Parser) -> None:
        for statement in statements:
            kind = statement[0]
            if kind == "declare":
                for name, node in statement[1]:
                    scope[name] = self.eval(node, scope, p)
            elif kind == "return":
                raise _Return(UNDEFINED if statement[1] is None else self.eval(statement[1], scope, p))
            elif kind == "throw":
                value = self.eval(statement[1], scope, p)
                message = value[1] if isinstance(value, tuple) and value[0] == "error" else to_js_string(value)
                raise TsxError(f"Error: {message}")
            elif kind == "if":
                branch = statement[2] if truthy(self.eval(statement[1], scope, p)) else statement[3]
                self.run(branch, dict(scope), p)
            elif kind == "expr":
                self.eval(statement[1], scope, p)

    def jsx(self, node: Any, scope: dict[str, Any], p: _Parser) -> Element:
        _, name, attrs, children, at = node
        self.budget.elements += 1
        if self.budget.elements > MAX_ELEMENTS:
            raise TsxError("The template renders more elements than the local service allows")
        props: dict[str, Any] = {}
        for attr in attrs:
            if attr[0] == "spread":
                spread = self.eval(attr[1], scope, p)
                if isinstance(spread, dict):
                    props.update(spread)
            else:
                props[attr[1]] = self.eval(attr[2], scope, p)
        kids = [self.eval(child, scope, p) for child in children]
        if name is None or name in ("Fragment", "React.Fragment"):
            return Element("", props, kids)
        if name[0].islower() and "." not in name:
            if name.lower() in FORBIDDEN_TAGS:
                raise p.fail(f"<{name}> is not allowed in an e-mail by the local service", at)
            return Element(name, props, kids)
        if "." not in name and (name in scope or (name in self.module and not name.startswith("__"))):
            target = self.lookup(name, scope, at, p)
            if isinstance(target, Closure):
                return Element(target, props, kids)
        if name in COMPONENTS:
            return Element(name, props, kids)
        raise p.fail(f"<{name}> is not a component the local service renders (see docs/local-service.md)", at)


_METHODS = frozenset({"toUpperCase", "toLowerCase", "trim", "includes", "join", "map", "filter"})

# ---------------------------------------------------------------------------------------------
# Rendering

_UNITLESS = frozenset(
    {"opacity", "zIndex", "fontWeight", "lineHeight", "flex", "flexGrow", "flexShrink", "order", "zoom"}
)
_TABLE = {
    "align": "center",
    "width": "100%",
    "border": "0",
    "cellPadding": "0",
    "cellSpacing": "0",
    "role": "presentation",
}


def _css(style: Any) -> str:
    if isinstance(style, str):
        return style
    if not isinstance(style, dict):
        return ""
    out = []
    for key, value in style.items():
        if value is None or value is UNDEFINED or value is False or value == "":
            continue
        prop = re.sub(r"[A-Z]", lambda m: "-" + m.group().lower(), key)
        text = to_js_string(value)
        if isinstance(value, float | int) and not isinstance(value, bool) and value != 0 and key not in _UNITLESS:
            text += "px"
        out.append(f"{prop}:{text}")
    return ";".join(out)


def _merge_style(base: str, style: Any) -> str:
    extra = _css(style)
    return ";".join(part for part in (base, extra) if part)


_URL_ATTRS = frozenset({"href", "src", "action", "background", "poster", "srcset"})


def _attrs(props: Mapping[str, Any], defaults: Mapping[str, str] | None = None) -> str:
    merged: dict[str, Any] = dict(defaults or {})
    for key, value in props.items():
        if key in ("children", "key", "ref") or (key.startswith("on") and key[2:3].isupper()):
            continue
        if key == "dangerouslySetInnerHTML":
            raise TsxError("dangerouslySetInnerHTML is not supported by the local service's TSX subset")
        if key == "style":
            merged["style"] = _merge_style(str(merged.get("style", "")), value)
            continue
        merged[{"className": "class", "htmlFor": "for"}.get(key, key)] = value
    out = []
    for key, value in merged.items():
        if value is None or value is UNDEFINED or value is False or isinstance(value, Closure | Element | list):
            continue
        if value is True:
            out.append(f" {key}")
            continue
        text = to_js_string(value)
        if key == "style" and not text:
            continue
        if key.lower() in _URL_ATTRS and re.match(r"\s*(javascript|vbscript|data):", text, re.IGNORECASE):
            if not (key.lower() == "src" and text.strip().lower().startswith("data:image/")):
                raise TsxError(f'The URL "{text[:40]}" of {key} is not allowed in an e-mail')
        out.append(f' {key}="{html.escape(text, quote=True)}"')
    return "".join(out)


_VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "area", "base", "col", "source", "wbr"})


class _Renderer:
    def __init__(self, evaluator: _Evaluator, parser: _Parser, logos: Mapping[str, Any]) -> None:
        self.ev = evaluator
        self.p = parser
        self.logos = logos
        self.size = 0

    def html(self, node: Any) -> str:
        parts: list[str] = []
        self.write(node, parts, 0)
        return "".join(parts)

    def emit(self, parts: list[str], text: str) -> None:
        self.size += len(text)
        if self.size > MAX_OUTPUT:
            raise TsxError("The rendered e-mail is larger than the local service allows")
        parts.append(text)

    def write(self, node: Any, parts: list[str], depth: int) -> None:
        if depth > MAX_DEPTH:
            raise TsxError("The template nests deeper than the local service renders")
        if node is None or node is UNDEFINED or isinstance(node, bool):
            return
        if isinstance(node, str):
            self.emit(parts, html.escape(node, quote=False))
            return
        if isinstance(node, _Raw):
            self.emit(parts, node.markup)
            return
        if isinstance(node, float | int):
            self.emit(parts, to_js_string(node))
            return
        if isinstance(node, list):
            for item in node:
                self.write(item, parts, depth + 1)
            return
        if isinstance(node, tuple) and node and node[0] == "error":
            raise TsxError("An Error object cannot be rendered")
        if isinstance(node, dict):
            raise TsxError("Objects are not valid as a React child")
        if isinstance(node, Closure):
            return
        if not isinstance(node, Element):
            raise TsxError(f"{_type_name(node)} is not valid as a React child")
        children = node.children if node.children else node.props.get("children", [])
        if isinstance(node.tag, Closure):
            props = {
                **node.props,
                "children": node.children if node.children else node.props.get("children", UNDEFINED),
            }
            self.write(self.ev.invoke(node.tag, [props], self.p), parts, depth + 1)
            return
        tag = node.tag
        if tag == "":
            self.write(children, parts, depth + 1)
            return
        if tag in COMPONENTS:
            COMPONENTS[tag](self, node, children, parts, depth)
            return
        self.emit(parts, f"<{tag}{_attrs(node.props)}")
        if tag.lower() in _VOID:
            self.emit(parts, "/>")
            return
        self.emit(parts, ">")
        self.write(children, parts, depth + 1)
        self.emit(parts, f"</{tag}>")

    def wrap(self, tag: str, node: Element, children: Any, parts: list[str], depth: int, **defaults: str) -> None:
        self.emit(parts, f"<{tag}{_attrs(node.props, defaults)}>")
        self.write(children, parts, depth + 1)
        self.emit(parts, f"</{tag}>")


def _capture(key: str) -> Callable[..., None]:
    def render(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
        value = node.props.get("value", UNDEFINED)
        if value is not UNDEFINED:
            r.ev.budget.captured[key] = to_js_string(value)

    return render


def _simple(tag: str, **defaults: str) -> Callable[..., None]:
    def render(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
        r.wrap(tag, node, children, parts, depth, **defaults)

    return render


def _html(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    r.emit(parts, "<!DOCTYPE html>")
    r.wrap("html", node, children, parts, depth, lang="en", dir="ltr")


def _head(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    r.emit(parts, '<head><meta content="text/html; charset=UTF-8" http-equiv="Content-Type"/>')
    r.write(children, parts, depth + 1)
    r.emit(parts, "</head>")


def _table(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int, style: str = "") -> None:
    props = {**node.props, "style": _merge_style(style, node.props.get("style"))}
    r.emit(parts, f"<table{_attrs(props, _TABLE)}><tbody><tr><td>")
    r.write(children, parts, depth + 1)
    r.emit(parts, "</td></tr></tbody></table>")


def _container(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    _table(r, node, children, parts, depth, "max-width:37.5em")


def _row(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    r.emit(parts, f'<table{_attrs(node.props, _TABLE)}><tbody style="width:100%"><tr style="width:100%">')
    r.write(children, parts, depth + 1)
    r.emit(parts, "</tr></tbody></table>")


def _heading(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    level = to_js_string(node.props.get("as", "h1"))
    tag = level if re.fullmatch(r"h[1-6]", level) else "h1"
    props = {k: v for k, v in node.props.items() if k != "as"}
    r.wrap(tag, Element(tag, props, []), children, parts, depth)


def _button(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    style = _merge_style(
        "line-height:100%;text-decoration:none;display:inline-block;max-width:100%", node.props.get("style")
    )
    r.wrap("a", Element("a", {**node.props, "style": style}, []), children, parts, depth, target="_blank")


def _img(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    style = _merge_style("display:block;outline:none;border:none;text-decoration:none", node.props.get("style"))
    r.emit(parts, f"<img{_attrs({**node.props, 'style': style})}/>")


def _hr(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    style = _merge_style("width:100%;border:none;border-top:1px solid #eaeaea", node.props.get("style"))
    r.emit(parts, f"<hr{_attrs({**node.props, 'style': style})}/>")


def _preview(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    hidden = "display:none;overflow:hidden;line-height:1px;opacity:0;max-height:0;max-width:0"
    r.wrap("div", Element("div", {"style": hidden}, []), children, parts, depth)


def _project_logo(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    data = node.props.get("data")
    data = data if isinstance(data, dict) else dict(r.logos)
    dark = to_js_string(node.props.get("mode", "light")) == "dark"
    order = ("logoFullDarkModeUrl", "logoDarkModeUrl", "logoFullUrl", "logoUrl") if dark else ("logoFullUrl", "logoUrl")
    url = next((data[k] for k in order if isinstance(data.get(k), str) and data[k]), None)
    if url:
        r.emit(parts, f'<img{_attrs({"src": url, "alt": "Logo", "height": "48"})} style="margin-bottom:24px"/>')


def _passthrough(r: _Renderer, node: Element, children: Any, parts: list[str], depth: int) -> None:
    r.write(children, parts, depth + 1)


COMPONENTS: dict[str, Callable[..., None]] = {
    "Html": _html,
    "Head": _head,
    "Body": _simple("body"),
    "Tailwind": _passthrough,
    "Font": lambda *args: None,
    "Container": _container,
    "Section": _table,
    "Row": _row,
    "Column": _simple("td"),
    "Heading": _heading,
    "Text": _simple("p", style="font-size:14px;line-height:24px;margin:16px 0"),
    "Link": _simple("a", target="_blank"),
    "Button": _button,
    "Img": _img,
    "Hr": _hr,
    "Preview": _preview,
    "CodeInline": _simple("code"),
    "Markdown": _passthrough,
    "Subject": _capture("subject"),
    "NotificationCategory": _capture("notification_category"),
    "ProjectLogo": _project_logo,
}


# ---------------------------------------------------------------------------------------------
# Plain text (the text part of a mail: links written out after their label, so a reader can copy them)

_BLOCKS = re.compile(r"<(?:br|/p|/h[1-6]|/div|/tr|/li|hr|/table|/title)\b[^>]*>", re.IGNORECASE)
_LINK = re.compile(r"<a\b[^>]*?\bhref=\"([^\"]*)\"[^>]*>(.*?)</a>", re.IGNORECASE | re.DOTALL)


def html_to_text(markup: str) -> str:
    body = re.sub(r"<head\b.*?</head>", "", markup, flags=re.IGNORECASE | re.DOTALL)
    body = re.sub(r"<(style|title)\b.*?</\1>", "", body, flags=re.IGNORECASE | re.DOTALL)
    body = re.sub(r'<div style="display:none[^"]*">.*?</div>', "", body, flags=re.DOTALL)

    def link(m: re.Match[str]) -> str:
        label = re.sub(r"<[^>]+>", "", m.group(2)).strip()
        target = m.group(1)
        # "label url", the URL standing alone between spaces, as React Email's plain text writes
        # it (clients cut the URL at the first space, so no brackets may touch it)
        return f"{label} {target} " if label and html.unescape(label) != html.unescape(target) else f"{target} "

    body = _LINK.sub(link, body)
    body = _BLOCKS.sub("\n", body)
    text = html.unescape(re.sub(r"<[^>]+>", "", body))
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# ---------------------------------------------------------------------------------------------
# Entry points


@dataclass(frozen=True)
class Module:
    """A parsed source (parse once, render many times)."""

    names: dict[str, Any]
    source: str
    file: str = "template.tsx"

    def extra(self, name: str) -> Any:
        return self.names["__extras__"].get(name)


def parse_module(source: str, file: str = "template.tsx") -> Module:
    """Read a source; syntax errors are reported as the service's bundler reports them."""
    parser = _Parser(source, file)
    try:
        names = parser.module()
    except TsxError as exc:
        raise parser.build_failure(exc) from None
    if parser.recovered:
        raise parser.build_failure(None)
    return Module(names, source, file)


def _entry(module: Module, name: str) -> Closure:
    value = module.names.get(name)
    if name == "EmailTheme" and name not in module.names["__exports__"]:
        # the service's bundle imports it by name from the theme, so its build fails (at the
        # import's place in its render.tsx)
        raise build_failure(
            [("render.tsx", 9, 9, 'No matching export in "virtual:/theme.tsx" for import "EmailTheme"')]
        )
    if value is None or name not in module.names["__exports__"]:
        raise TsxError(f"The source does not export a function called {name}")
    if not isinstance(value, Closure):
        if isinstance(value, tuple) and value[0] == "lazy" and value[1][0] == "closure":
            return value[1][1]  # type: ignore[no-any-return]
        raise TsxError(f"{name} must be a function")
    return value


def preview_values(module: Module, name: str) -> dict[str, Any]:
    """`EmailTemplate.PreviewVariables` (or `EmailTheme.PreviewProps`) as values, {} if absent."""
    node = module.extra(name)
    if node is None:
        return {}
    budget = _Budget()
    value = _Evaluator(dict(module.names), budget).eval(node, {}, _Parser(module.source, module.file))
    return value if isinstance(value, dict) else {}


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _nesting_bounded(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` with a RecursionError (source nested deeper than the renderer's recursion
    goes) raised as the TsxError every caller answers."""

    @functools.wraps(function)
    def bounded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except RecursionError:
            raise TsxError("The source is nested too deeply to render") from None

    return bounded


@_nesting_bounded
def render(
    template_source: str,
    theme_source: str | None,
    *,
    user: Mapping[str, Any],
    project: Mapping[str, Any],
    variables: Mapping[str, Any],
    unsubscribe_link: str | None = None,
    logos: Mapping[str, Any] | None = None,
    preview: bool = False,
) -> Rendered:
    """Render the template's `EmailTemplate`, wrapped by the theme's `EmailTheme` when there is a
    theme. Raises TsxError for anything the subset cannot render or the source throws, and for
    source nested deeper than the renderer's recursion goes."""
    template = parse_module(template_source)
    theme = parse_module(theme_source, "theme.tsx") if theme_source is not None else None
    budget = _Budget()
    values = dict(variables)
    if preview:
        values = {**preview_values(template, "EmailTemplate.PreviewVariables"), **values}
    parser = _Parser(template_source)
    evaluator = _Evaluator(dict(template.names), budget)
    props: dict[str, Any] = {"user": dict(user), "project": dict(project), "variables": values}
    if unsubscribe_link is not None:
        props["unsubscribeLink"] = unsubscribe_link
    content = evaluator.invoke(_entry(template, "EmailTemplate"), [props], parser)
    renderer = _Renderer(evaluator, parser, logos or {})
    inner = renderer.html(content)
    if theme is None:
        markup = inner
    else:
        theme_parser = _Parser(theme.source, theme.file)
        theme_evaluator = _Evaluator(dict(theme.names), budget)
        marker = Element("", {}, [])
        theme_props: dict[str, Any] = {"children": marker, "projectLogos": dict(logos or {})}
        if unsubscribe_link is not None:
            theme_props["unsubscribeLink"] = unsubscribe_link
        elif preview:
            theme_props = {**preview_values(theme, "EmailTheme.PreviewProps"), **theme_props}
        wrapped = theme_evaluator.invoke(_entry(theme, "EmailTheme"), [theme_props], theme_parser)
        theme_renderer = _Renderer(theme_evaluator, theme_parser, logos or {})
        marker.children = [_Raw(inner)]
        markup = theme_renderer.html(wrapped)
    return Rendered(
        html=markup,
        text=html_to_text(markup),
        subject=budget.captured.get("subject"),
        notification_category=budget.captured.get("notification_category"),
    )


def check_theme(theme_source: str) -> None:
    """Render a theme around an empty body: TsxError when it cannot be."""
    render(
        "export function EmailTemplate() { return <></>; }",
        theme_source,
        user={"displayName": "Preview User"},
        project={"displayName": "Preview Project"},
        variables={},
        preview=True,
    )
