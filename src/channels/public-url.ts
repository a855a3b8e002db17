/** Where the provider posts text-message status callbacks, under the service's public URL. */
export const TWILIO_STATUS_PATH = "/webhooks/twilio/status";

/** The service's public base URL, without a trailing slash: PUBLIC_URL, or `http://127.0.0.1:PORT`. */
export function publicUrl(config: { PUBLIC_URL?: string | undefined; PORT: number }): string {
  return (config.PUBLIC_URL ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, "");
}
