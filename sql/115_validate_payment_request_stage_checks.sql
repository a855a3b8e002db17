-- The checks 114 added NOT VALID, validated here in their own transaction: VALIDATE CONSTRAINT
-- takes a lock that lets reads and writes of the tables go on while it scans them.
alter table preorder_notifications validate constraint preorder_notifications_stage_check;
alter table message_templates validate constraint message_templates_check;
alter table message_stage_settings validate constraint message_stage_settings_check;
