/** Small DOM helpers: the widget has no framework. */

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  children: (Node | string)[] = [],
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) element.append(child);
  return element;
}

/** The parsed JSON of a script tag; undefined when absent or malformed (a theme's mistake must not break the page). */
export function readJson<T>(element: Element | null): T | undefined {
  if (!element?.textContent) return undefined;
  try {
    return JSON.parse(element.textContent) as T;
  } catch {
    return undefined;
  }
}

/** The first match of the merchant's selector (developer settings), else of the default. */
export function pick<T extends Element = HTMLElement>(root: ParentNode, custom: string | null | undefined, fallback: string): T | null {
  if (custom) {
    try {
      const found = root.querySelector<T>(custom);
      if (found) return found;
    } catch {
      // an invalid selector falls back to the default
    }
  }
  return root.querySelector<T>(fallback);
}

export function pickAll(root: ParentNode, custom: string | null | undefined, fallback: string): HTMLElement[] {
  if (custom) {
    try {
      const found = [...root.querySelectorAll<HTMLElement>(custom)];
      if (found.length > 0) return found;
    } catch {
      // an invalid selector falls back to the default
    }
  }
  return [...root.querySelectorAll<HTMLElement>(fallback)];
}

/** `{{ name }}` placeholders replaced by the values given. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** Puts the node right after the anchor; at the end of the page without one. */
export function insertAfter(anchor: Element | null, node: HTMLElement): void {
  if (anchor?.parentNode) anchor.parentNode.insertBefore(node, anchor.nextSibling);
  else document.body.append(node);
}
