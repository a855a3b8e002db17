import { z } from "zod";
import type { PlatformRequester, RequestOptions } from "../client.ts";
import { expectNoUserErrors } from "../errors.ts";
import { parseAnswer } from "./parse.ts";
import { userErrorsSchema } from "./user-errors.ts";

/**
 * The app's own side of the platform: the access scopes the merchant granted it, sending a Flow
 * trigger, and reading a resource's translations (which needs read_translations).
 */

/** The platform's limit on a Flow trigger's payload, in bytes of its JSON. */
export const MAX_FLOW_PAYLOAD_BYTES = 50_000;

// Each document is exported: test/platform-client.test.ts validates every one against the schema.
export const APP_ACCESS_SCOPES = `query AppAccessScopes {
  currentAppInstallation { accessScopes { handle } }
}`;

// Its userErrors are the platform's plain UserError (field and message, no code).
export const FLOW_TRIGGER_RECEIVE = `mutation FlowTriggerReceive($handle: String, $payload: JSON) {
  flowTriggerReceive(handle: $handle, payload: $payload) {
    userErrors { field message }
  }
}`;

export const RESOURCE_TRANSLATIONS = `query ResourceTranslations($resourceId: ID!, $locale: String!) {
  translatableResource(resourceId: $resourceId) {
    resourceId
    translations(locale: $locale) { key value }
  }
}`;

const scopesAnswer = z.object({ currentAppInstallation: z.object({ accessScopes: z.array(z.object({ handle: z.string() })) }) });
const flowAnswer = z.object({ flowTriggerReceive: z.object({ userErrors: userErrorsSchema }) });
const translationsAnswer = z.object({
  translatableResource: z.object({ resourceId: z.string(), translations: z.array(z.object({ key: z.string(), value: z.string().nullable() })) }).nullable(),
});

export async function getAccessScopes(client: PlatformRequester, options?: RequestOptions): Promise<string[]> {
  const data = await client.request<unknown>(APP_ACCESS_SCOPES, {}, options);
  return parseAnswer(scopesAnswer, data, "currentAppInstallation").currentAppInstallation.accessScopes.map((s) => s.handle);
}

/**
 * Starts the workflows of the app's Flow trigger `handle`. A payload over the platform's limit is
 * refused here, before spending a call; the platform's user errors throw.
 */
export async function sendFlowTrigger(client: PlatformRequester, handle: string, payload: Record<string, unknown>, options?: RequestOptions): Promise<void> {
  const bytes = Buffer.byteLength(JSON.stringify(payload), "utf8");
  if (bytes > MAX_FLOW_PAYLOAD_BYTES) throw new Error(`flow trigger ${handle}: payload of ${bytes} bytes is above the platform's ${MAX_FLOW_PAYLOAD_BYTES}`);
  const data = await client.request<unknown>(FLOW_TRIGGER_RECEIVE, { handle, payload }, options);
  expectNoUserErrors(parseAnswer(flowAnswer, data, "flowTriggerReceive").flowTriggerReceive, "flowTriggerReceive");
}

/** A resource's translated values in `locale`, by key (`title`, ...); null when the resource does not exist. */
export async function getTranslations(client: PlatformRequester, resourceId: string, locale: string, options?: RequestOptions): Promise<Map<string, string> | null> {
  const data = await client.request<unknown>(RESOURCE_TRANSLATIONS, { resourceId, locale }, options);
  const resource = parseAnswer(translationsAnswer, data, "translatableResource").translatableResource;
  if (!resource) return null;
  return new Map(resource.translations.flatMap((t) => (t.value === null ? [] : [[t.key, t.value] as const])));
}
