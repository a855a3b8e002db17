-- The store platform is Shopify, and its ids are `gid://shopify/<Type>/<n>` (issue 29, decision
-- 0216). Until now the service built and stored `gid://platform/<Type>/<n>`, so a database that ran
-- an earlier version holds ids no webhook or API answer of a real store will ever equal. Rewrite
-- them in every text and jsonb column of the app's schema; a fresh database has nothing to rewrite.
do $$
declare
  col record;
begin
  for col in
    select c.table_schema, c.table_name, c.column_name, c.data_type
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
      and c.is_generated = 'NEVER' and c.data_type in ('text', 'character varying', 'jsonb')
  loop
    if col.data_type = 'jsonb' then
      execute format(
        'update %I.%I set %I = replace(%I::text, %L, %L)::jsonb where %I::text like %L',
        col.table_schema, col.table_name, col.column_name, col.column_name,
        'gid://platform/', 'gid://shopify/', col.column_name, '%gid://platform/%');
    else
      execute format(
        'update %I.%I set %I = replace(%I, %L, %L) where %I like %L',
        col.table_schema, col.table_name, col.column_name, col.column_name,
        'gid://platform/', 'gid://shopify/', col.column_name, '%gid://platform/%');
    end if;
  end loop;
end
$$;
