-- A sender_name (account_settings.sending) may no longer carry an @, the quote, backslash and
-- angle brackets, or control, line-separator and bidirectional-override characters (checked on
-- the NFKC form): such a name could read as another sender's address in the From header. A name
-- stored before the rule is reset, so the shop's e-mails fall back to its store name; the same
-- characters as NAME_FORBIDDEN in src/account/sending.ts.
update account_settings
   set sending = sending - 'sender_name', updated_at = now()
 where jsonb_typeof(sending -> 'sender_name') = 'string'
   and normalize(sending ->> 'sender_name', NFKC) ~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"<>\\@]';
