/**
 * Every marketing e-mail links its unsubscribe page in its body, not only in the List-Unsubscribe
 * header: a merchant's template that leaves out `{{ unsubscribe_url }}` still sends one, with the
 * link added at the end of the body (inside the layout, or the body alone when it is off).
 * A message is marketing when it carries List-Unsubscribe (back-in-stock alerts do; preorder
 * notifications are about an order and do not).
 */

/** The label of the added link, by the message's Content-Language; English otherwise. */
const LABELS: Record<string, string> = { en: "Unsubscribe", fr: "Se désabonner", de: "Abmelden", es: "Darse de baja" };

/** The http(s) link of a List-Unsubscribe header (`<https://...>, <mailto:...>`). */
function unsubscribeLink(headers: Record<string, string> | undefined): string | undefined {
  const value = headers?.["List-Unsubscribe"];
  return value === undefined ? undefined : /<(https?:[^<>]+)>/.exec(value)?.[1];
}

const escapeAttribute = (text: string): string => text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** The body with the unsubscribe link added when the message has one and the body does not show it (as written or html-escaped). */
export function withUnsubscribeLink(html: string, headers: Record<string, string> | undefined): string {
  const link = unsubscribeLink(headers);
  if (link === undefined || html.includes(link) || html.includes(escapeAttribute(link))) return html;
  const language = (headers?.["Content-Language"] ?? "").toLowerCase().split("-")[0] ?? "";
  const label = LABELS[language] ?? "Unsubscribe";
  return `${html}\n<p style="font-size:12px;color:#666"><a href="${escapeAttribute(link)}">${label}</a></p>`;
}
