"""The local service's TSX subset (local/authmw_local/tsx_render.py): pure rendering, no service."""

from __future__ import annotations

import pytest

from authmw_local.tsx_render import TsxError, render

HEAD = 'import { Button, Text } from "@react-email/components";\nimport { Subject } from "@stackframe/emails";\n'


def html_of(body: str, **variables: object) -> str:
    source = HEAD + "export function EmailTemplate({ user, project, variables }) {\n" + body + "\n}"
    return render(
        source, None, user={"displayName": variables.pop("name", "Ada")}, project={"displayName": "Acme"},
        variables=variables,
    ).html  # fmt: skip


def test_jsx_text_follows_reacts_whitespace_rules_and_entities():
    # As React: a line break and the indentation around it vanish (so "{name}" then a new line
    # "and" touch), spaces inside a line stay, entities are decoded and escaped again.
    assert html_of("return <p>\n  Hello   {user.displayName}\n  and &amp; friends\n</p>;") == (
        "<p>Hello   Adaand &amp; friends</p>"
    )
    assert html_of("return <p>a{' '}<b>b</b></p>;") == "<p>a <b>b</b></p>"


def test_expressions_of_the_subset():
    body = """
      const items = ["x", "y"];
      const label = user.displayName ? `Hi ${user.displayName.toUpperCase()}` : "Hi";
      if (variables.count > 1) { return <p>{label}, {variables.count * 2} {items.map((i) => <i key={i}>{i}</i>)}</p>; }
      return <p>{variables.missing ?? "none"} {user.nothing?.deeper} {items.join("+")}</p>;
    """
    assert html_of(body, count=3) == "<p>Hi ADA, 6 <i>x</i><i>y</i></p>"
    assert html_of(body, count=1) == "<p>none  x+y</p>"


def test_style_objects_and_attributes():
    html = html_of(
        'return <div className="c" style={{ fontSize: 12, opacity: 0.5, marginTop: 0 }} onClick={() => 1} key="k">x</div>;'
    )
    assert html == '<div class="c" style="font-size:12px;opacity:0.5;margin-top:0">x</div>'


def test_values_are_escaped_in_text_and_attributes():
    hostile = '"><img src=x onerror=alert(1)>'
    html = html_of(
        "return <a title={user.displayName} href={variables.link}>{user.displayName}</a>;",
        name=hostile,
        link="https://ok.example/?a=1&b=2",
    )
    assert "<img" not in html
    assert 'title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"' in html
    assert 'href="https://ok.example/?a=1&amp;b=2"' in html
    # the control: ordinary markup of the template itself is kept
    assert html.startswith("<a ") and html.endswith("</a>")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("return <a href={variables.link}>x</a>;", "is not allowed in an e-mail"),
        ('return <div dangerouslySetInnerHTML={{ __html: "<b>" }} />;', "dangerouslySetInnerHTML"),
        ("while (true) {}", '"while" is not supported'),
        ("user.displayName = 'x'; return <p/>;", "Assignments are not supported"),
        ("return <Unknown />;", "<Unknown> is not a component"),
        ("return <p>{fetch('x')}</p>;", "fetch is not defined"),
        ("return <p>{user.a.b}</p>;", "Cannot read properties of undefined"),
    ],
)
def test_what_the_subset_refuses_names_the_problem(body, message):
    with pytest.raises(TsxError, match=message):
        html_of(body, link="javascript:alert(1)")


def test_a_theme_wraps_the_template_and_subject_is_captured():
    theme = (
        'import { Html, Body } from "@react-email/components";\n'
        "export function EmailTheme({ children, unsubscribeLink }) {\n"
        "  return <Html><Body>{children}{unsubscribeLink && <a href={unsubscribeLink}>stop</a>}</Body></Html>;\n}"
    )
    template = HEAD + 'export function EmailTemplate() { return <><Subject value="S" /><Text>Body</Text></>; }'
    result = render(template, theme, user={}, project={}, variables={}, unsubscribe_link="https://u.example")
    assert result.subject == "S"
    assert result.html.startswith('<!DOCTYPE html><html lang="en" dir="ltr"><body><p ')
    assert result.html.endswith('Body</p><a href="https://u.example">stop</a></body></html>')
    assert result.text == "Body\nstop https://u.example"


def _build_error(template: str, theme: str | None = None) -> str:
    with pytest.raises(TsxError) as raised:
        render(template, theme, user={"displayName": "Ada"}, project={"displayName": "Acme"}, variables={})
    return str(raised.value)


def test_syntax_errors_are_reported_as_the_services_bundler_reports_them():
    # esbuild reads past a stray "}" in JSX text and then meets the end of the file inside <span>:
    # two errors, each at its line (from 1) and column (from 0), in the file it is in.
    unclosed = "\n  export function EmailTemplate() {\n    return <div><span>unclosed tag\n  }\n  "
    assert _build_error(unclosed) == (
        "Build failed with 2 errors:\n"
        'virtual:/template.tsx:4:2: ERROR: The character "}" is not valid inside a JSX element\n'
        'virtual:/template.tsx:5:2: ERROR: Unexpected end of file before a closing "span" tag'
    )
    template = "export function EmailTemplate() { return <p>x</p>; }"
    theme = unclosed.replace("EmailTemplate", "EmailTheme")
    assert _build_error(template, theme).splitlines()[1].startswith("virtual:/theme.tsx:4:2: ERROR: ")
    # one stray character alone fails the build too
    assert _build_error("export function EmailTemplate() { return <p>a > b</p>; }") == (
        "Build failed with 1 error:\n"
        'virtual:/template.tsx:1:46: ERROR: The character ">" is not valid inside a JSX element'
    )


def test_a_theme_without_its_export_fails_the_build_at_the_import():
    template = "export function EmailTemplate() { return <p>x</p>; }"
    assert _build_error(template, "export function Other() { return <div/>; }") == (
        "Build failed with 1 error:\n"
        'virtual:/render.tsx:9:9: ERROR: No matching export in "virtual:/theme.tsx" for import "EmailTheme"'
    )
    # a template without its export is the local renderer's own message (the service's bundle
    # takes it from a namespace import, so its build does not fail there)
    assert _build_error("export function Other() { return <div/>; }") == (
        "The source does not export a function called EmailTemplate"
    )
    # and an error the source throws when it runs is no build error
    assert "Build failed" not in _build_error("export function EmailTemplate() { throw new Error('no'); }")
