-- One blocked-reason vocabulary for every area (src/messaging/blocked.ts): a back-in-stock stage
-- switched off was `template_disabled`, the same refusal preorders call `stage_disabled`.
update bis_notifications set blocked_reason = 'stage_disabled' where blocked_reason = 'template_disabled';
update bis_ledger set last_error = 'stage_disabled' where status = 'blocked' and last_error = 'template_disabled';
update bis_signups set last_error = 'blocked: stage_disabled' where last_error = 'blocked: template_disabled';
