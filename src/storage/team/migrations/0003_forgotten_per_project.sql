-- A forgotten unit id is recorded per project: row-level security hides other projects' records, so a record
-- one project's member made for an id (say, one it read while it was granted another project) must not take the
-- place of that other project's own record when it forgets the unit.
DROP INDEX team_forgotten_uid;
CREATE UNIQUE INDEX team_forgotten_project_uid ON team_forgotten (project_id, uid);
CREATE INDEX team_forgotten_uid ON team_forgotten (uid);
