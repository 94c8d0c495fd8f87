-- Access decided by the server: a team admin grants each member's role the projects it may use, and row-level
-- security lets a role see and change only the rows of those projects, whatever project key its client sends.
-- Superusers and the tables' owner (the admin) are not subject to these policies.
CREATE TABLE team_grants (
  project_id BIGINT NOT NULL REFERENCES team_projects(id) ON DELETE CASCADE,
  member TEXT NOT NULL,
  granted_by TEXT NOT NULL DEFAULT current_user,
  at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, member)
);
CREATE INDEX team_grants_member ON team_grants (member);

ALTER TABLE team_grants ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_grants_own ON team_grants FOR SELECT USING (member = current_user);

ALTER TABLE team_projects ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_projects_granted ON team_projects FOR SELECT
  USING (id IN (SELECT project_id FROM team_grants WHERE member = current_user));

ALTER TABLE team_units ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_units_granted ON team_units FOR ALL
  USING (project_id IN (SELECT project_id FROM team_grants WHERE member = current_user))
  WITH CHECK (project_id IN (SELECT project_id FROM team_grants WHERE member = current_user));

ALTER TABLE team_history ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_history_granted ON team_history FOR ALL
  USING (project_id IN (SELECT project_id FROM team_grants WHERE member = current_user))
  WITH CHECK (project_id IN (SELECT project_id FROM team_grants WHERE member = current_user));

ALTER TABLE team_forgotten ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_forgotten_granted ON team_forgotten FOR ALL
  USING (project_id IN (SELECT project_id FROM team_grants WHERE member = current_user))
  WITH CHECK (project_id IN (SELECT project_id FROM team_grants WHERE member = current_user));

-- Member roles made before this migration may read their own grants (they hold none until the admin grants them).
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT rolname FROM pg_roles
           WHERE NOT rolsuper AND rolname <> current_user AND rolname NOT LIKE 'pg\_%'
             AND has_table_privilege(oid, 'team_units', 'SELECT')
  LOOP
    EXECUTE format('GRANT SELECT ON team_grants TO %I', r.rolname);
  END LOOP;
END $$;
