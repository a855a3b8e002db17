/**
 * Every kind of work the service does, as one row per thing processed or failed, for the
 * overview's throughput and its graph (decision 0251): queue jobs' runs (job_attempts: a run
 * that threw is a failure, retried or not), application jobs (jobs: completed or failed), sends
 * (the message ledgers: sent, failed for good), provider syncs (signup_syncs: synced, failed for
 * good) and offer syncs (preorder_offers: synced, failing). An application job's queue runs are
 * not counted twice: its jobs row is.
 *
 * SQL of the work since `since` (an SQL expression of the caller's: a timestamptz). Columns: kind, task, ok (boolean), at.
 */
export const workSince = (since: string): string => `
  select 'job' as kind, task, outcome = 'completed' as ok, finished_at as at from job_attempts
  where finished_at >= ${since} and app_job_id is null and outcome in ('completed', 'retrying', 'failed')
  union all
  select 'job', kind, status = 'completed', finished_at from jobs
  where finished_at >= ${since} and status in ('completed', 'failed')
  union all
  select 'send', 'send:back_in_stock', true, sent_at from bis_ledger where sent_at >= ${since}
  union all
  select 'send', 'send:back_in_stock', false, coalesce(logged_at, created_at) from bis_ledger where status = 'failed' and coalesce(logged_at, created_at) >= ${since}
  union all
  select 'send', 'send:preorders', status = 'sent', coalesce(sent_at, updated_at) from preorder_notifications
  where status in ('sent', 'failed') and coalesce(sent_at, updated_at) >= ${since}
  union all
  select 'send', 'send:merchant', status = 'sent', coalesce(sent_at, updated_at) from bis_merchant_messages
  where status in ('sent', 'failed') and coalesce(sent_at, updated_at) >= ${since}
  union all
  select 'provider_sync', 'provider_sync:' || target, status = 'synced', coalesce(synced_at, updated_at) from signup_syncs
  where status in ('synced', 'failed') and coalesce(synced_at, updated_at) >= ${since}
  union all
  select 'offer_sync', 'offer_sync', true, synced_at from preorder_offers where synced_at >= ${since}
  union all
  select 'offer_sync', 'offer_sync', false, updated_at from preorder_offers where sync_status = 'failed' and updated_at >= ${since}`;
