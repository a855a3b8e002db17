export const USAGE = `Operator commands for the Preorder, Back-in-Stock and Account Settings API.

Usage: npm run cli -- <command> [options]

  migrate                                  apply pending database migrations
  shops create --name NAME                 create a shop and its first API key
  shops install --shop STORE.myshopify.com [--id SHOP_ID]
                                           print the link that installs the app on the store
                                           (JSON: install_url); --id binds the install to that
                                           shop (signed with PLATFORM_API_SECRET, 7 days)
  shops connect --id SHOP_ID --shop STORE.myshopify.com
                                           connect the shop with a custom app's Admin API token,
                                           read from PLATFORM_ACCESS_TOKEN (stored encrypted)
  keys create --shop SHOP_ID               create another API key for a shop
  keys revoke KEY_OR_KEY_ID                revoke an API key (the key itself or its id)
  keys list --shop SHOP_ID [--json]        list a shop's keys (ids and dates, never the keys)
  jobs list [--source app|queue|all] [--status S] [--kind K] [--shop SHOP_ID] [--limit N] [--json]
                                           newest jobs first (default limit 50);
                                           S is queued, running, completed, failed or cancelled
  jobs show JOB_ID [--json]                every field of one job, its errors and result
                                           (JOB_ID: an app job's uuid or a queue row's number)
  jobs retry JOB_ID                        queue a failed, cancelled or completed job again
  messages failed [--shop SHOP_ID] [--area back_in_stock|preorders] [--limit N] [--json]
                                           messages that failed for good, newest first, with
                                           their reason (default limit 50)
  messages retry (--id MESSAGE_ID ... | --all) [--shop SHOP_ID] [--area back_in_stock|preorders]
                                           send failed messages again (same message ids, retried
                                           for SEND_RETRY_HOURS); --all without --shop takes
                                           every shop's; prints how many of each area were queued
  integrations connect-email-provider-1 --shop SHOP_ID --code CODE [--list LIST_ID]
                                           finish email_provider_1's OAuth connection (the code is
                                           exchanged for a token, stored encrypted; sync stays off)
  integrations disconnect-email-provider-1 --shop SHOP_ID
                                           remove that connection (and turn its sync off)
  plans set --shop SHOP_ID --plan NAME [--limit N]
                                           put a shop on a plan (free, starter, growth, scale);
                                           --limit: a custom monthly alert quota instead of the plan's
  plans show --shop SHOP_ID                the shop's plan and monthly alert quota (JSON)
  help                                     this text

Results go to stdout (JSON where noted), logs and errors to stderr.
The database is DATABASE_URL, or the embedded server under DATA_DIR (default .data/),
shared with a running \`npm start\`. LOG_LEVEL (default warn here) controls the logs;
LOG_LEVEL=debug also prints error stacks.
Exit codes: 0 ok, 1 error, 2 usage.
`;
