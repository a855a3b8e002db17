import type { FastifyInstance } from "fastify";
import type pg from "pg";
import twilio from "twilio";
import { TWILIO_STATUS_PATH } from "../channels/public-url.ts";
import { isUuid } from "../core/params.ts";

export interface TwilioStatusOptions {
  pool: pg.Pool;
  /** Signs the callbacks (X-Twilio-Signature). */
  authToken: string;
  /** The public base URL the provider was given (PUBLIC_URL): the signature covers the full URL. */
  publicUrl: string;
}

type FormParams = Record<string, string | string[]>;

/** A later report never overwrites a further one: callbacks may arrive out of order. */
const STATUS_RANK: Record<string, number> = {
  accepted: 0,
  scheduled: 0,
  queued: 0,
  sending: 1,
  sent: 2,
  partially_delivered: 3,
  delivered: 3,
  undelivered: 3,
  failed: 3,
  canceled: 3,
  read: 4,
};

function parseForm(body: string): FormParams {
  const params: FormParams = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const previous = params[key];
    if (previous === undefined) params[key] = value;
    else params[key] = Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return params;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

/**
 * `POST /webhooks/twilio/status`: the provider's delivery report for a text message. Verifies
 * `X-Twilio-Signature` (HMAC-SHA1 of the full URL and the sorted form parameters, with the auth
 * token) and records `MessageStatus` on the message (`ref`) whose provider id is `MessageSid`.
 */
export async function twilioStatusRoutes(app: FastifyInstance, options: TwilioStatusOptions): Promise<void> {
  const base = options.publicUrl.replace(/\/+$/, "");
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) =>
    done(null, parseForm(typeof body === "string" ? body : body.toString("utf8"))),
  );

  app.post(TWILIO_STATUS_PATH, async (request, reply) => {
    const params = (request.body ?? {}) as FormParams;
    const signature = request.headers["x-twilio-signature"];
    const url = `${base}${request.url}`;
    if (typeof signature !== "string" || !twilio.validateRequest(options.authToken, signature, url, params)) {
      return reply.code(403).send({ errors: ["Twilio signature is missing or invalid"] });
    }
    const sid = single(params.MessageSid);
    const status = single(params.MessageStatus);
    if (!sid || sid.length > 64 || !status || !/^[a-z_]{1,32}$/.test(status)) {
      return reply.code(400).send({ errors: ["MessageSid and MessageStatus are required"] });
    }
    // The message's own id rides in the callback URL (`ref`, src/channels/sms-twilio.ts), signed
    // with it: its ledger row is found by its key, and must still hold this provider id (a resend
    // has a new one).
    const ref = single((request.query as Record<string, string | string[]>).ref);
    const { rowCount } = ref && isUuid(ref)
      ? await options.pool.query(
          `update bis_ledger set delivery_status = $1
            where id = $4::uuid and provider_message_id = $2
              and (delivery_status is null or coalesce(($3::jsonb ->> delivery_status)::int, -1) <= coalesce(($3::jsonb ->> $1)::int, 0))`,
          [status, sid, JSON.stringify(STATUS_RANK), ref],
        )
      : { rowCount: 0 };
    if (rowCount === 0) request.log.debug({ sid, status, ref }, "twilio status: no notification updated");
    return reply.code(204).send();
  });
}
