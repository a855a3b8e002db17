import { z } from "zod";
import { defineAction } from "../../core/action.ts";
import { SMS_SENDER_RULE, senderPolicy, sendingDocument, sendingIssues, sendingSchema } from "../sending.ts";
import { loadDocument, updateDocument } from "../documents.ts";

const FIELDS =
  "sender_name (From name of e-mails; null: the store name), sender_email (From address; null: the service's sending address), reply_to (Reply-To of e-mails; null: the settings' contact_email, or none) and sms_sender (sender of text messages: an E.164 number or an alphanumeric sender id; null: the service's configured number)";

export const getSending = defineAction({
  name: "account.sending.get",
  method: "GET",
  path: "/account/sending",
  description: `Who the shop's messages come from: ${FIELDS}. Back-in-stock e-mails and text messages use them.`,
  aliases: ["show the sender name and address", "read the e-mail sending settings"],
  kind: "read",
  input: z.strictObject({}),
  output: sendingSchema,
  async handler(ctx) {
    return loadDocument(ctx.db, ctx.shopId, sendingDocument);
  },
});

export const patchSending = defineAction({
  name: "account.sending.update",
  method: "PATCH",
  path: "/account/sending",
  description: `Changes who the shop's messages come from (partial: only the keys sent change; null resets a field to its fallback). ${FIELDS}. Answers the complete sending settings.`,
  notes: [
    "E-mail addresses are one plain address each (no display name): 422 '<field> must be an e-mail address' otherwise.",
    `sms_sender ${SMS_SENDER_RULE}.`,
    "sender_email must be an address at a domain the service sends from (its own sending domain, or one the operator lists in SENDER_EMAIL_DOMAINS): 422 naming those domains otherwise.",
    "An alphanumeric sms_sender must be one the operator registered (SMS_SENDER_IDS); an E.164 number is sent from only if the SMS account owns it.",
  ],
  aliases: ["change the sender name", "set the reply to address", "set the sms sender id"],
  kind: "write",
  input: sendingDocument.patchSchema,
  output: sendingSchema,
  async handler(ctx, { input }) {
    const policy = senderPolicy(ctx.config);
    return updateDocument(ctx.db, ctx.shopId, sendingDocument, input, (merged, patch) => sendingIssues(policy, merged, patch));
  },
});
