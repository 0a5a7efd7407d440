// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { sloRules } from '../../src/metrics/slo-rules.js';
import { enginePath, requireEngine } from '../harness/engines.js';

const run = promisify(execFile);
const ORG = '11111111-1111-4111-8111-111111111111';
const FAST = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const SLOW = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const QUIET = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const WORKFLOW = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';

const objectives = [
  { id: FAST, organizationId: ORG, name: 'payments "fast"', target: 0.99, workflowUUID: WORKFLOW },
  { id: SLOW, organizationId: ORG, name: 'settlement', target: 0.99 },
  { id: QUIET, organizationId: ORG, name: 'quiet', target: 0.99 },
];

const series = (objective: string, result: string, values: string) =>
  `      - series: '${`wfapi_objective_executions_total{organization_id="${ORG}",objective="${objective}",result="${result}"}`}'\n        values: '${values}'`;

/** An alert of an objective as promtool expects it: the recorded labels and the rule's own. */
const alert = (objective: string, name: string, severity: string, workflow: string, summary: string) => `
          - exp_labels:
              organization_id: "${ORG}"
              objective: "${objective}"
              objective_name: ${JSON.stringify(name)}
              severity: ${severity}
              workflow: "${workflow}"
            exp_annotations:
              summary: ${JSON.stringify(summary)}`;

/**
 * Synthetic counters, one sample a minute: FAST fails 1 in 6 (16.7 times its 1% budget) for two
 * hours; SLOW fails 2 in 102 (1.96 times) for three days; QUIET fails always, but 6 an hour, under
 * the low-traffic guard's 10. The rules are evaluated every 5 minutes, not every minute: they
 * have no `for`, every time asked about is a multiple of 5 minutes, and three days of one-minute
 * evaluations over windows up to 3 days took promtool a minute of CPU.
 */
const UNIT_TESTS = `rule_files:
  - rules.yml
evaluation_interval: 5m
tests:
  - interval: 1m
    input_series:
${series(FAST, 'good', '0+100x120')}
${series(FAST, 'bad', '0+20x120')}
${series(QUIET, 'bad', '0+0.1x120')}
${series(QUIET, 'good', '0+0x120')}
    alert_rule_test:
      - eval_time: 65m
        alertname: WfapiSloBurnPage
        exp_alerts:${alert(FAST, 'payments "fast"', 'critical', WORKFLOW, 'payments "fast": the error budget burns fast (target 0.99)')}
      - eval_time: 65m
        alertname: WfapiSloBurnTicket
        exp_alerts:${alert(FAST, 'payments "fast"', 'warning', WORKFLOW, 'payments "fast": the error budget burns slowly (target 0.99)')}
  - interval: 1m
    input_series:
${series(SLOW, 'good', '0+100x4400')}
${series(SLOW, 'bad', '0+2x4400')}
    alert_rule_test:
      - eval_time: 4330m
        alertname: WfapiSloBurnPage
        exp_alerts: []
      - eval_time: 4330m
        alertname: WfapiSloBurnTicket
        exp_alerts:${alert(SLOW, 'settlement', 'warning', 'all', 'settlement: the error budget burns slowly (target 0.99)')}
    promql_expr_test:
      - expr: round(wfapi_objective:error_ratio:rate6h * 10000)
        eval_time: 4330m
        exp_samples:
          - labels: '{organization_id="${ORG}",objective="${SLOW}"}'
            value: 196
`;

const needsPromtool = await requireEngine('promtool');
describe('wfapi slo rules, checked by promtool', needsPromtool, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'wfapi-slo-rules-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('are accepted by promtool check rules', async () => {
    writeFileSync(join(dir, 'rules.yml'), sloRules(objectives, ORG));
    const { stdout } = await run(enginePath('promtool'), ['check', 'rules', join(dir, 'rules.yml')]);
    assert.match(stdout, /SUCCESS: 20 rules found/);
    writeFileSync(join(dir, 'empty.yml'), sloRules([]));
    await run(enginePath('promtool'), ['check', 'rules', join(dir, 'empty.yml')]);
  });

  it('page on a fast burn, open a ticket on a slow one, and keep quiet under 10 executions an hour (promtool test rules)', async () => {
    writeFileSync(join(dir, 'rules.yml'), sloRules(objectives));
    writeFileSync(join(dir, 'tests.yml'), UNIT_TESTS);
    const outcome = await run(enginePath('promtool'), ['test', 'rules', join(dir, 'tests.yml')]).catch(
      (error: { stdout: string; stderr: string }) => error,
    );
    assert.match(outcome.stdout, /SUCCESS/, `${outcome.stdout}\n${outcome.stderr}`);
  });
});
