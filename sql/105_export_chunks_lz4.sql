-- An export's chunks compressed with lz4 where the server has it: CSV shrinks about 7 times (a
-- 1M-line report: 42 MB stored instead of 306 MB, and as much less WAL), and writing the smaller
-- file costs less than writing the whole one (bench:export: the export 0.1-0.3 s faster in 8 of 8
-- rounds). Where the server was built without lz4 the column stays uncompressed (EXTERNAL, 031):
-- pglz, the only other method, costs more than the disk it saves. Decision 0194.
do $$
begin
  alter table export_chunks alter column bytes set compression lz4;
  alter table export_chunks alter column bytes set storage extended;
exception when feature_not_supported then
  raise notice 'export_chunks stays uncompressed: this server has no lz4';
end
$$;
