-- jobq engine, a stand-in for the dependencies' parents (issue 35). TEMPORARY: the file of
-- dependencies defines jobq._parents_of over its edges, and this file is deleted when both
-- are merged. Until then no job has parents.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).


-- The ids of the jobs job p_job_id was enqueued depending on (none, until dependencies exist).
-- Caller: jobq.parent_results.
CREATE OR REPLACE FUNCTION jobq._parents_of(p_job_id bigint)
RETURNS SETOF bigint
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT NULL::bigint WHERE false
$$;
COMMENT ON FUNCTION jobq._parents_of(bigint) IS
    'Private. The ids of the parents of job p_job_id (a stand-in: none). Caller: jobq.parent_results. Locks nothing.';
