import { documentActions } from "../../core/settings-document.ts";
import { SMS_SENDER_RULE, senderPolicy, sendingDocument, sendingIssues } from "../sending.ts";

const FIELDS =
  "sender_name (From name of e-mails; null: the store name), sender_email (From address; null: the service's sending address), reply_to (Reply-To of e-mails; null: the settings' contact_email, or none) and sms_sender (sender of text messages: an E.164 number or an alphanumeric sender id; null: the service's configured number)";

export const [getSending, patchSending] = documentActions(sendingDocument, {
  name: "account.sending",
  path: "/account/sending",
  get: {
    description: `Who the shop's messages come from: ${FIELDS}. Back-in-stock e-mails and text messages use them.`,
    aliases: ["show the sender name and address", "read the e-mail sending settings"],
  },
  update: {
    description: `Changes who the shop's messages come from (partial: only the keys sent change; null resets a field to its fallback). ${FIELDS}. Answers the complete sending settings.`,
    notes: [
      "E-mail addresses are one plain address each (no display name): 422 '<field> must be an e-mail address' otherwise.",
      `sms_sender ${SMS_SENDER_RULE}.`,
      "sender_email must be an address at a domain the service sends from (its own sending domain, or one the operator lists in SENDER_EMAIL_DOMAINS): 422 naming those domains otherwise.",
      "An alphanumeric sms_sender must be one the operator registered (SMS_SENDER_IDS); an E.164 number is sent from only if the SMS account owns it.",
    ],
    aliases: ["change the sender name", "set the reply to address", "set the sms sender id"],
  },
  check: (ctx) => {
    const policy = senderPolicy(ctx.config);
    return (merged, patch) => sendingIssues(policy, merged, patch);
  },
});
