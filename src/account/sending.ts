import { z } from "zod";
import type { RenderedMessage } from "../channels/types.ts";
import type { Db } from "../core/db.ts";
import { defineDocument } from "../core/settings-document.ts";
import { emailAddress, loadAccountSettings } from "./settings.ts";

/**
 * Who the shop's messages come from: the From name and address and the Reply-To of e-mails, the
 * sender of text messages. Unset fields fall back: the name to the shop's store name, the address
 * to the address of EMAIL_FROM (the operator's sending domain), Reply-To to the settings'
 * contact_email (or none), the SMS sender to TWILIO_FROM.
 *
 * Use from any channel user (back-in-stock alerts, preorder notifications):
 *   const identity = await loadSenderIdentity(db, shopId, senderPolicy(config));
 *   message = applySenderIdentity(message, identity);
 */

/** E.164 (a number) or an alphanumeric sender id: 1-11 letters, digits or spaces, at least one letter. */
const SMS_SENDER = /^(?:\+[1-9]\d{6,14}|(?=[A-Za-z0-9 ]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9 ]{0,10})$/;
export const SMS_SENDER_RULE = "must be an E.164 number (+15551234567) or an alphanumeric sender id of 1 to 11 letters, digits or spaces with at least one letter";

/**
 * What a From display name must not carry: an `@` (a name such as `security@paypal.com` shows in
 * mail clients as the sender's address), the quote, backslash and angle brackets that would end
 * the quoted name and start an address, and control, line-separator and bidirectional-override
 * characters. Checked on the NFKC form, so the full-width ＠ ＜ ＞ ＂ count as their ASCII selves.
 * The same characters as sql/095_sender_name_rule.sql, which reset the names stored before the rule.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const NAME_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF"<>\\@]/;
const SENDER_NAME_RULE = 'must not contain an e-mail address, control characters or the characters < > " \\ @';

/** Whether `name` can stand as the quoted display name of a From header as it is. */
function isSafeDisplayName(name: string): boolean {
  return /\S/.test(name) && !NAME_FORBIDDEN.test(name.normalize("NFKC"));
}

export const sendingSchema = z.strictObject({
  sender_name: z
    .string({ error: "must be a string" })
    .min(1)
    .max(100)
    .refine((name) => !NAME_FORBIDDEN.test(name.normalize("NFKC")), SENDER_NAME_RULE)
    .regex(/\S/, "must not be blank")
    .nullable()
    .describe(`From name of e-mails; null: the store name. It ${SENDER_NAME_RULE}`),
  sender_email: emailAddress.nullable().describe("From address of e-mails; null: the address of the service's EMAIL_FROM"),
  reply_to: emailAddress.nullable().describe("Reply-To of e-mails; null: the settings' contact_email, or none"),
  sms_sender: z
    .string({ error: "must be a string" })
    .regex(SMS_SENDER, SMS_SENDER_RULE)
    .nullable()
    .describe("Sender of text messages: an E.164 number or an alphanumeric sender id; null: the service's TWILIO_FROM"),
});

type Sending = z.output<typeof sendingSchema>;

const DEFAULT_SENDING: Sending = { sender_name: null, sender_email: null, reply_to: null, sms_sender: null };

export const sendingDocument = defineDocument({
  table: "account_settings",
  column: "sending",
  label: "account sending",
  schema: sendingSchema,
  defaults: DEFAULT_SENDING,
});

/** The address part of `Name <address>` (or the whole text when it is a bare address). */
function addressOf(from: string): string {
  return /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
}

/**
 * What senders the service lets a shop use: e-mail domains (EMAIL_FROM's and SENDER_EMAIL_DOMAINS)
 * and alphanumeric SMS sender ids (SMS_SENDER_IDS). Anything else would let a shop send as someone
 * else (a bank, another shop) through the operator's mail and SMS accounts.
 */
export interface SenderPolicy {
  emailFrom: string;
  emailDomains: readonly string[];
  smsSenderIds: readonly string[];
}

export function senderPolicy(config: { EMAIL_FROM: string; SENDER_EMAIL_DOMAINS: readonly string[]; SMS_SENDER_IDS: readonly string[] }): SenderPolicy {
  const own = domainOf(addressOf(config.EMAIL_FROM));
  return { emailFrom: config.EMAIL_FROM, emailDomains: [...new Set([...(own ? [own] : []), ...config.SENDER_EMAIL_DOMAINS])], smsSenderIds: config.SMS_SENDER_IDS };
}

const domainOf = (address: string): string => address.slice(address.lastIndexOf("@") + 1).toLowerCase();

function senderEmailAllowed(policy: SenderPolicy, address: string): boolean {
  return policy.emailDomains.includes(domainOf(address));
}

/**
 * The sender a text message goes out as: an E.164 number as it is (the SMS provider sends only
 * from the account's own), a registered sender id as the operator spelled it; undefined for
 * anything else.
 */
function allowedSmsSender(policy: SenderPolicy, sender: string): string | undefined {
  if (sender.startsWith("+")) return sender;
  return policy.smsSenderIds.find((id) => id.toLowerCase() === sender.toLowerCase());
}

/** The 422 issues of sending settings about to be saved, for the fields the patch sets. */
export function sendingIssues(policy: SenderPolicy, sending: Sending, patch: Record<string, unknown>): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  if ("sender_email" in patch && sending.sender_email !== null && !senderEmailAllowed(policy, sending.sender_email)) {
    issues.push({ path: "sender_email", message: `must be an address at a domain this service sends from (${policy.emailDomains.join(", ")})` });
  }
  if ("sms_sender" in patch && sending.sms_sender !== null && allowedSmsSender(policy, sending.sms_sender) === undefined) {
    const ids = policy.smsSenderIds.length > 0 ? policy.smsSenderIds.join(", ") : "none are registered";
    issues.push({ path: "sms_sender", message: `must be an E.164 number or a sender id registered with this service (${ids})` });
  }
  return issues;
}

/** What a message of the shop is sent as, resolved. */
export interface SenderIdentity {
  /** `"Name" <address>`, or the bare address when no name is safe to show. */
  emailFrom: string;
  replyTo: string | null;
  /** null: the channel's configured sender. */
  smsFrom: string | null;
}

/**
 * The shop's sender identity, resolved over the fallbacks. A stored sender the policy no longer
 * allows (the operator narrowed it) is not used: e-mails come from EMAIL_FROM's address with
 * replies still going to the shop's address, texts from the channel's own sender.
 */
export async function loadSenderIdentity(db: Db, shopId: string, policy: SenderPolicy): Promise<SenderIdentity> {
  const sending = await sendingDocument.load(db, shopId);
  const settings = await loadAccountSettings(db, shopId);
  // A name stored before the rule (or a store name, which has no such rule) that breaks it is not
  // used: the store name, else the bare address, rather than a name that reads as another sender.
  const name = [sending.sender_name, settings.store_name].find((candidate) => candidate !== null && isSafeDisplayName(candidate));
  const ownAddress = sending.sender_email !== null && senderEmailAllowed(policy, sending.sender_email) ? sending.sender_email : null;
  const address = ownAddress ?? addressOf(policy.emailFrom);
  return {
    emailFrom: name === undefined || name === null ? address : `"${name}" <${address}>`,
    replyTo: sending.reply_to ?? (ownAddress === null ? sending.sender_email : null) ?? settings.contact_email,
    smsFrom: sending.sms_sender === null ? null : (allowedSmsSender(policy, sending.sms_sender) ?? null),
  };
}

/** The message as the shop sends it: From and Reply-To on e-mails, the sender on text messages. */
export function applySenderIdentity<M extends RenderedMessage>(message: M, identity: SenderIdentity): M {
  if (message.channel === "email") {
    return { ...message, from: identity.emailFrom, ...(identity.replyTo ? { replyTo: identity.replyTo } : {}) };
  }
  return identity.smsFrom ? { ...message, from: identity.smsFrom } : message;
}
