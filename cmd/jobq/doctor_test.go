package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDoctorHealthyDatabasePasses(t *testing.T) {
	b := setupOps(t)
	code, stdout, stderr := b.op(t, "doctor")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	for _, check := range []string{"roles", "row level security", "security definer search_path", "public execute",
		"internal functions", "schema version", "settings", "leader lease"} {
		require.Contains(t, stdout, "OK    "+check+"\n")
	}
	require.NotContains(t, stdout, "FAIL")
	// Nothing was changed or audited by the settings check.
	require.False(t, queryBool(t, b.admin, `SELECT EXISTS (SELECT 1 FROM jobq.audit_log WHERE action = 'set_setting')`))
}

func TestDoctorNamesEachBrokenCheck(t *testing.T) {
	cases := []struct {
		name, breakSQL, want string
	}{
		{"rls not forced", `ALTER TABLE jobq.jobs NO FORCE ROW LEVEL SECURITY`,
			"FAIL  row level security: table jobq.jobs has store_id but row level security is not forced"},
		{"public execute", `GRANT EXECUTE ON FUNCTION jobq.set_setting(text, text) TO PUBLIC`,
			"FAIL  public execute: function jobq.set_setting(text,text) is executable by PUBLIC"},
		{"internal function", `GRANT EXECUTE ON FUNCTION jobq._setting_interval(text) TO worker_runtime`,
			"FAIL  internal functions: role worker_runtime may execute internal function jobq._setting_interval(text)"},
		{"stale checksum", `UPDATE jobq.function_files SET checksum = repeat('0', 64) WHERE name = '60_operator.sql'`,
			"FAIL  schema version: function files 60_operator.sql differ"},
		{"search_path", `ALTER FUNCTION jobq.set_setting(text, text) RESET search_path`,
			"FAIL  security definer search_path: SECURITY DEFINER function jobq.set_setting(text,text) does not pin"},
		{"setting out of range", `UPDATE jobq.settings SET value = '5000' WHERE name = 'default_max_attempts'`,
			"FAIL  settings: setting default_max_attempts = \"5000\""},
		{"stale leader", `UPDATE jobq.leader SET holder = 'w-gone', epoch = epoch + 1, lease_expires_at = now() - interval '1 hour'`,
			"FAIL  leader lease: leader w-gone holds a lease that expired"},
	}
	b := setupOps(t)
	var checksum string
	require.NoError(t, b.admin.QueryRow(testCtx(t), `SELECT checksum FROM jobq.function_files WHERE name = '60_operator.sql'`).Scan(&checksum))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.admin.Exec(testCtx(t), tc.breakSQL)
			require.NoError(t, err)
			code, stdout, stderr := b.op(t, "doctor")
			require.Equal(t, 1, code, "stdout:\n%s", stdout)
			require.Contains(t, stdout, tc.want)
			require.Contains(t, stderr, "1 check(s) failed")
			// Repair, so the next case breaks one thing only.
			if tc.name == "stale checksum" {
				_, err = b.admin.Exec(testCtx(t), `UPDATE jobq.function_files SET checksum = $1 WHERE name = '60_operator.sql'`, checksum)
			} else {
				_, err = b.admin.Exec(testCtx(t), repairSQL[tc.name])
			}
			require.NoError(t, err)
			code, stdout, _ = b.op(t, "doctor")
			require.Equal(t, 0, code, "after repair:\n%s", stdout)
		})
	}
}

var repairSQL = map[string]string{
	"rls not forced":       `ALTER TABLE jobq.jobs FORCE ROW LEVEL SECURITY`,
	"public execute":       `REVOKE EXECUTE ON FUNCTION jobq.set_setting(text, text) FROM PUBLIC`,
	"internal function":    `REVOKE EXECUTE ON FUNCTION jobq._setting_interval(text) FROM worker_runtime`,
	"search_path":          `ALTER FUNCTION jobq.set_setting(text, text) SET search_path = pg_catalog, pg_temp`,
	"setting out of range": `UPDATE jobq.settings SET value = '25' WHERE name = 'default_max_attempts'`,
	"stale leader":         `UPDATE jobq.leader SET holder = NULL, lease_expires_at = NULL`,
}

// doctor --json prints every check with ok and its problems, and keeps doctor's exit status: 0
// when all pass, 1 when one fails.
func TestDoctorJSON(t *testing.T) {
	b := setupOps(t)
	type result struct {
		Checks []struct {
			Name     string   `json:"name"`
			OK       bool     `json:"ok"`
			Problems []string `json:"problems"`
		} `json:"checks"`
		Failed int `json:"failed"`
	}
	code, stdout, stderr := b.op(t, "doctor", "--json")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	var healthy result
	require.NoError(t, json.Unmarshal([]byte(stdout), &healthy), "stdout:\n%s", stdout)
	require.Len(t, healthy.Checks, 8)
	require.Zero(t, healthy.Failed)
	for _, c := range healthy.Checks {
		require.True(t, c.OK, c.Name)
		require.NotNil(t, c.Problems, "an empty list, not null: %s", c.Name)
		require.Empty(t, c.Problems, c.Name)
	}

	_, err := b.admin.Exec(testCtx(t), `ALTER TABLE jobq.jobs NO FORCE ROW LEVEL SECURITY`)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = b.admin.Exec(testCtx(t), `ALTER TABLE jobq.jobs FORCE ROW LEVEL SECURITY`) })
	code, stdout, _ = b.op(t, "doctor", "--json")
	require.Equal(t, 1, code, "stdout:\n%s", stdout)
	var broken result
	require.NoError(t, json.Unmarshal([]byte(stdout), &broken), "stdout:\n%s", stdout)
	require.Equal(t, 1, broken.Failed)
	for _, c := range broken.Checks {
		if c.Name == "row level security" {
			require.False(t, c.OK)
			require.Equal(t, []string{"table jobq.jobs has store_id but row level security is not forced"}, c.Problems)
			continue
		}
		require.True(t, c.OK, c.Name)
	}
}
