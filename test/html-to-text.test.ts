import { describe, expect, it } from "vitest";
import { htmlToText } from "../src/messaging/render/html-to-text.ts";

describe("htmlToText: an e-mail's text part from its HTML", () => {
  it("keeps links' targets, blocks' breaks and list items, decodes entities once, drops style, script and head", () => {
    const html = `<html><head><title>T</title><style>p { color: red }</style></head><body>
<p>Hi <b>Ann</b>,</p><p>Good &amp; <i>new</i>: &lt;x&gt; &#233; &#x263A; &amp;lt;</p>
<a href="https://x.example/a?b=1&amp;c=2">Shop <b>now</b></a><br/><a href='https://u.example'>https://u.example</a>
<ul><li>one</li><li>two</li></ul><script>alert(1)</script><a>no target</a></body></html>`;
    expect(htmlToText(html)).toBe(
      "Hi Ann,\n\nGood & new: <x> é ☺ &lt;\n\nShop now (https://x.example/a?b=1&c=2)\nhttps://u.example\n\n- one\n\n- two\n\nno target",
    );
  });

  it("keeps the breaks after a link that never closes; a closed link's label stays on one line", () => {
    expect(htmlToText('<a href="x">Unclosed link<p>para one</p><p>para two</p>')).toBe("Unclosed linkpara one\n\npara two");
    expect(htmlToText('<a href="https://x.example">Shop<br>now</a><br>after')).toBe("Shopnow (https://x.example)\nafter");
  });

  it("leaves an impossible character reference as written instead of failing the send", () => {
    expect(htmlToText("<p>&#99999999; &#x110000;</p>")).toBe("&#99999999; &#x110000;");
  });

  // Each took the regular expressions this replaced from seconds to minutes (8,000 unclosed links:
  // 203 s); the test's own time limit is what would catch a return of that.
  it("reads pathological HTML in one pass: thousands of unclosed links, dropped elements and tags", () => {
    const links = '<a href="x">'.repeat(8_000);
    expect(htmlToText(links)).toBe("");
    expect(htmlToText(`${"<style>".repeat(10_000)}text`)).toBe("text");
    expect(htmlToText(`${"<a href='".repeat(10_000)}`)).toBe(`${"<a href='".repeat(10_000)}`);
    expect(htmlToText(`<p>${"<".repeat(50_000)}`)).toBe("<".repeat(50_000));
    expect(htmlToText(`${"<a href=\"x\">label".repeat(5_000)}</a>`)).toBe(`${"label".repeat(5_000)} (x)`);
    // A tag of nothing but spaces (a template can write 990,000 of them): 11.9 s at 198,000 with two adjacent \s*.
    expect(htmlToText(`<p>Hi</p><${" ".repeat(990_000)}>`)).toBe("Hi");
  });
});
