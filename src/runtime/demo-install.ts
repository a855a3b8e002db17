import { signInstallBinding, installUrl } from "../platform/oauth/install-binding.ts";

/** A browser's User-Agent: the library turns away bots (isbot) at /auth and its callback, as a real install would be. */
const BROWSER_USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

const MAX_REDIRECTS = 5;

/**
 * Installs the app on a store as a merchant's browser does: `GET <appUrl>/auth?shop=..&bind=..`,
 * the redirect to the store's authorize page (the emulator approves at once), the redirect back
 * to the callback, carrying the cookies the service set. Answers the callback's JSON
 * (`{shop, shop_id}`); throws with the status and body of a refusal. Used by the embedded default
 * (demo.ts) to install the demo shop on the emulator through the same path a real store uses.
 */
export async function installLikeABrowser(appUrl: string, store: string, binding?: string): Promise<{ shop: string; shop_id: string }> {
  const cookies = new Map<string, string>();
  let url = installUrl(appUrl, store, binding);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const target = new URL(url);
    const cookieHeader = target.origin === new URL(appUrl).origin ? [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") : "";
    const response = await fetch(url, { redirect: "manual", headers: { "user-agent": BROWSER_USER_AGENT, ...(cookieHeader ? { cookie: cookieHeader } : {}) } });
    if (target.origin === new URL(appUrl).origin) {
      for (const line of response.headers.getSetCookie()) {
        const [pair = ""] = line.split(";");
        const at = pair.indexOf("=");
        const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
        // An emptied cookie (Max-Age=0, expires in the past) is gone, as a browser drops it.
        if (at > 0 && value !== "" && !/max-age=0|expires=thu, 01 jan 1970/i.test(line)) cookies.set(name, value);
        else if (at > 0) cookies.delete(name);
      }
    }
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url).toString();
      continue;
    }
    const text = await response.text();
    if (response.status !== 200) throw new Error(`the install of ${store} was refused at ${target.pathname}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as { shop: string; shop_id: string };
  }
  throw new Error(`the install of ${store} did not end after ${MAX_REDIRECTS} redirects`);
}

/** The signed binding of the store to a shop row (decision 0220), for the demo shop's own install. */
export function demoBinding(secret: string, shopId: string, store: string): string {
  return signInstallBinding(secret, shopId, store);
}
