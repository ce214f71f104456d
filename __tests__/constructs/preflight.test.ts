/**
 * Plan-time checks (constructs/preflight.ts), proven on the synthesized JSON:
 * - their shape (which data sources, which attributes, no token value anywhere);
 * - their behaviour, by Terraform itself: the placeholder guard is planned for real (`terraform_data` is built in,
 *   so `terraform plan` needs no provider and no network); each data-source postcondition is evaluated by Terraform
 *   against recorded-shape results (found, missing, wrong machine type, too small), with `self.` read from a local
 *   holding that result. Needs the `terraform` binary: skipped without it on a developer machine, FAILS under CI
 *   unless TERRAFORM_TESTS=skip says to skip on purpose (__tests__/ci-env.ts; the workflows install Terraform 1.11.4).
 */
import { terraformTest } from '../ci-env';
import { terraformPlan } from '../stand-ins';
import { synthStack } from '../util';
import { minMasterVersionOf } from '../../jobs/tpu';

const REAL = {
  PROJECT: 'acme-tpu-prod',
  GCS_BUCKET: 'acme-post-train-ckpt',
  RESERVATION: 'acme-v6e-32',
  AUTHORIZED_CIDR: '198.18.0.0/15',
};

/** Runs `terraform init` + `plan` on a JSON config; returns the errors' summaries and messages (__tests__/stand-ins.ts). */
const plan = terraformPlan;

/** Terraform's verdict on each of a data source's postconditions for one simulated read result. */
function postconditions(dataSource: any, result: object): { ok: boolean; output: string } {
  const checks = Object.fromEntries(
    dataSource.lifecycle.postcondition.map((c: any, i: number) => [
      `post${i}`,
      { lifecycle: { precondition: [{ condition: c.condition.replace(/\bself\./g, 'local.read.'), error_message: c.error_message.replace(/\bself\./g, 'local.read.') }] } },
    ]),
  );
  return plan({ locals: { read: result }, resource: { terraform_data: checks } });
}

/** Which postconditions (by index) Terraform reported as failed. */
function failed(result: { output: string }): number[] {
  return [...result.output.matchAll(/in resource\.terraform_data\.post(\d+)\.lifecycle/g)].map((m) => Number(m[1]));
}

/** Only the preflight part of a stack: its local and terraform_data (no provider needed). */
function guardOnly(stack: any): object {
  return { locals: stack.locals, resource: { terraform_data: { preflight: preflightOf(stack) } } };
}

/** The stack's preflight terraform_data (constructs/preflight.ts PlaceholderGuard). */
function preflightOf(stack: any): any {
  const [key] = Object.keys(stack.resource.terraform_data).filter((k) => k.startsWith('preflight_'));
  return stack.resource.terraform_data[key!];
}

describe('placeholders never reach a cloud', () => {
  const example = synthStack('infra', { PIPELINES: 'none' });

  test('the example config synthesizes, carrying a guard that lists each placeholder and its variable', () => {
    expect(example.locals.preflight_placeholders).toEqual([
      "project 'my-tpu-project' (set PROJECT)",
      "bucket 'my-tpu-project-post-training' (set GCS_BUCKET)",
      "tpu.reservation 'my-v6e-32-reservation' (set RESERVATION)",
      "controlPlane.authorizedCidrs '203.0.113.0/24' (set AUTHORIZED_CIDR)",
    ]);
    const guard = preflightOf(example);
    expect(guard.lifecycle.precondition[0].condition).toBe('${length(local.preflight_placeholders) == 0}');
  });

  test('a real config carries an empty list', () => {
    expect(synthStack('infra', { ...REAL, PIPELINES: 'none' }).locals.preflight_placeholders).toEqual([]);
  });

  test('every pipeline stack carries the guard too', () => {
    expect(synthStack('rl-qwen3').locals.preflight_placeholders).toHaveLength(4);
  });

  test('data sources that call Google APIs are not read while a placeholder is left', () => {
    for (const ds of Object.values(example.data.google_compute_reservation) as any[]) {
      expect(ds.lifecycle.precondition).toEqual([expect.objectContaining({ condition: '${length(local.preflight_placeholders) == 0}' })]);
    }
  });

  terraformTest('terraform plan fails at once, naming each placeholder; with real values it plans', () => {
    const failed = plan(guardOnly(example));
    expect(failed.ok).toBe(false);
    expect(failed.output).toContain('Resource precondition failed');
    for (const v of ['PROJECT', 'GCS_BUCKET', 'RESERVATION', 'AUTHORIZED_CIDR']) expect(failed.output).toContain(`(set ${v})`);
    const real = plan(guardOnly(synthStack('infra', { ...REAL, PIPELINES: 'none' })));
    expect(real.output).toContain('Plan: 1 to add');
    expect(real.ok).toBe(true);
  });
});

describe('reservations are checked at plan time', () => {
  const infra = synthStack('infra', { ...REAL, CLUSTER_NODEPOOL_COUNT: '2', SINGLE_HOST_RESERVATION: 'acme-v6e-8', PIPELINES: 'none' });
  const reservations = Object.values(infra.data.google_compute_reservation) as any[];
  const byName = Object.fromEntries(reservations.map((r) => [r.name, r]));

  test('one data source per reservation, in ZONE, in the owner project', () => {
    expect(reservations.map((r) => [r.name, r.zone, r.project])).toEqual([
      ['acme-v6e-32', 'us-east5-b', 'acme-tpu-prod'],
      ['acme-v6e-8', 'us-east5-b', 'acme-tpu-prod'],
    ]);
    const shared = synthStack('infra', { ...REAL, RESERVATION: 'projects/acme-shared/reservations/v6e-pool', PIPELINES: 'none' });
    expect(Object.values(shared.data.google_compute_reservation).map((r: any) => [r.name, r.project])).toEqual([['v6e-pool', 'acme-shared']]);
  });

  test('the checks compare the machine type and the VMs of all slices bound to it', () => {
    const conditions = byName['acme-v6e-32'].lifecycle.postcondition.map((c: any) => c.condition);
    expect(conditions.slice(0, 3)).toEqual([
      '${self.status != null && self.status != ""}',
      '${!(try(length(self.specific_reservation), 0) > 0) || try(self.specific_reservation[0].source_instance_template, "") != "" || try(self.specific_reservation[0].instance_properties[0].machine_type, "") == "ct6e-standard-4t"}',
      '${!(try(length(self.specific_reservation), 0) > 0) || try(self.specific_reservation[0].count, 0) >= 16}',
    ]);
    expect(conditions).toHaveLength(4);
    expect(byName['acme-v6e-8'].lifecycle.postcondition[2].condition).toBe(
      '${!(try(length(self.specific_reservation), 0) > 0) || try(self.specific_reservation[0].count, 0) >= 1}',
    );
  });

  const read = (machineType: string, count: number, inUse = 0) => ({
    status: 'READY',
    specific_reservation: [{ count, in_use_count: inUse, instance_properties: [{ machine_type: machineType }] }],
  });

  terraformTest('a half-used reservation fails the plan with its free count; the pools\' own VMs in use pass', () => {
    const r = byName['acme-v6e-32'];
    const half = postconditions(r, read('ct6e-standard-4t', 16, 8));
    expect(failed(half)).toEqual([3]);
    expect(half.output.replace(/\s+/g, ' ')).toContain(
      "Reservation 'acme-v6e-32' (RESERVATION (env)) in zone us-east5-b of project acme-tpu-prod has 8 of its 16 VMs free (8 in use), fewer than the 16 VMs of tpu-v6e-32-0, tpu-v6e-32-1",
    );
    expect(failed(postconditions(r, read('ct6e-standard-4t', 20, 5)))).toEqual([3]);
    expect(postconditions(r, read('ct6e-standard-4t', 20, 4)).ok).toBe(true);
    // A later plan, once the two slices run on it: all 16 in use, by these pools.
    expect(postconditions(r, read('ct6e-standard-4t', 16, 16)).ok).toBe(true);
    // Too small altogether is reported once, by the size check.
    expect(failed(postconditions(r, read('ct6e-standard-4t', 8, 4)))).toEqual([2]);
  });

  terraformTest('Terraform passes a matching reservation and fails each mismatch with its fix', () => {
    const r = byName['acme-v6e-32'];
    const ok = postconditions(r, read('ct6e-standard-4t', 16));
    expect(ok.ok).toBe(true);
    // What the provider leaves for a 404 (the resource read clears the id): empty attributes. Reported once.
    const missing = postconditions(r, { status: '', specific_reservation: [] });
    expect(failed(missing)).toEqual([0]);
    expect(missing.output).toContain("Reservation 'acme-v6e-32' (RESERVATION (env)) was not found in zone us-east5-b of project");
    const wrong = postconditions(r, read('ct6e-standard-8t', 16));
    expect(failed(wrong)).toEqual([1]);
    // The message names the variable that fits the pools to what the reservation holds (Terraform wraps lines).
    expect(wrong.output.replace(/\s+/g, ' ')).toContain(
      "holds 16 VMs of 'ct6e-standard-8t', not ct6e-standard-4t, the machine type of tpu-v6e-32-0, tpu-v6e-32-1: GKE would create the pools but never get a node. To fit it: set TPU_TYPE=v6e-8.",
    );
    const small = postconditions(r, read('ct6e-standard-4t', 8));
    expect(failed(small)).toEqual([2]);
    expect(small.output).toMatch(/holds fewer than the 16 VMs of tpu-v6e-32-0,\s+tpu-v6e-32-1/);
    // A reservation made from an instance template has no instance_properties: reported, not an evaluation error.
    const template = postconditions(r, { status: 'READY', specific_reservation: [{ count: 16, instance_properties: [] }] });
    expect(failed(template)).toEqual([1]);
    expect(template.output.replace(/\s+/g, ' ')).toContain('To fit it: Use a reservation of ct6e-standard-4t VMs');
    expect(template.output).not.toContain('Error: Invalid index');
  });

  terraformTest('the mismatch message names the variable that fixes it, for each pool', () => {
    // Tutorial 002's VM (TPU_NAME: one ct6e-standard-8t) on a reservation of 8 ct6e-standard-4t VMs.
    const vm = synthStack('infra', { ...REAL, ZONE: 'us-east5-b', TPU_NAME: 'vm', PIPELINES: 'none' });
    const [r] = Object.values(vm.data.google_compute_reservation) as any[];
    const wrong = postconditions(r, read('ct6e-standard-4t', 8));
    expect(failed(wrong)).toEqual([1]);
    expect(wrong.output.replace(/\s+/g, ' ')).toContain("holds 8 VMs of 'ct6e-standard-4t', not ct6e-standard-8t, the machine type of tpu-v6e-8-8t-0");
    expect(wrong.output.replace(/\s+/g, ' ')).toContain('To fit it: set TPU_TYPE=v6e-32.');
    // A 2-VM reservation of 4-chip VMs: COMPUTE_TYPE + TOPOLOGY (TPU_TYPE=v6e-8 would read as the 8-chip VM).
    expect(postconditions(r, read('ct6e-standard-4t', 2)).output.replace(/\s+/g, ' ')).toContain(
      'To fit it: set COMPUTE_TYPE=ct6e-standard-4t and TOPOLOGY=2x4.',
    );
    // The single-host pool on a v6e-32 reservation: SINGLE_HOST_RESERVATION, or use it as RESERVATION.
    const single = postconditions(byName['acme-v6e-8'], read('ct6e-standard-4t', 8));
    expect(single.output.replace(/\s+/g, ' ')).toContain(
      'To fit it: set SINGLE_HOST_RESERVATION to a reservation of ct6e-standard-8t VMs; to use this one for the main slices instead, set RESERVATION=acme-v6e-8 and TPU_TYPE=v6e-32.',
    );
  });

  terraformTest('an aggregate reservation (no specific_reservation in provider 6.50) passes, with a warning saying what was not checked', () => {
    const r = byName['acme-v6e-32'];
    const aggregate = { status: 'READY', specific_reservation: [] };
    expect(postconditions(r, aggregate).ok).toBe(true);
    expect(postconditions(r, { ...aggregate, specific_reservation: null }).ok).toBe(true);
    const [, check] = Object.entries(infra.check).find(([n]) => /acme-v6e-32-specific/.test(n))!;
    const asserted = (read: object) =>
      plan({
        locals: { read },
        check: {
          note: {
            assert: (check as any).assert.map((a: any) => ({
              condition: a.condition.replace(/data\.google_compute_reservation\.[\w-]+\./g, 'local.read.'),
              error_message: a.error_message.replace(/data\.google_compute_reservation\.[\w-]+\./g, 'local.read.'),
            })),
          },
        },
      });
    const note = asserted(aggregate);
    expect(note.ok).toBe(true);
    expect(note.output).toContain('Warning: Check block assertion failed');
    expect(note.output.replace(/\s+/g, ' ')).toContain(
      "Reservation 'acme-v6e-32' (RESERVATION (env)) in zone us-east5-b of project acme-tpu-prod is not a specific reservation (an aggregate TPU reservation, which google provider 6.50 cannot read): its VM family and size were NOT checked against the 16 ct6e-standard-4t VMs of tpu-v6e-32-0, tpu-v6e-32-1.",
    );
    // A specific reservation, or one not found (the postcondition reports that), gives no warning.
    expect(asserted(read('ct6e-standard-4t', 16)).output).not.toContain('Warning');
    expect(asserted({ status: '', specific_reservation: [] }).output).not.toContain('Warning');
  });

  test('each reservation has its check block, reading its own data source', () => {
    const checks = Object.entries(infra.check) as Array<[string, any]>;
    expect(checks.map(([n]) => n)).toEqual([expect.stringMatching(/acme-v6e-32-specific/), expect.stringMatching(/acme-v6e-8-specific/)]);
    const ids = Object.keys(infra.data.google_compute_reservation);
    checks.forEach(([, c], i) => expect(c.assert[0].condition).toContain(`data.google_compute_reservation.${ids[i]}.specific_reservation`));
  });

  test('spot and flex-start pools consume no reservation: nothing to check', () => {
    const spot = synthStack('infra', { ...REAL, RESERVATION: '', TPU_CAPACITY: 'spot', PIPELINES: 'none' });
    expect(spot.data?.google_compute_reservation).toBeUndefined();
  });
});

describe('a reservation made from an instance template (no machine type in provider 6.50) is accepted, with a note', () => {
  const infra = synthStack('infra', { ...REAL, PIPELINES: 'none' });
  const [r] = Object.values(infra.data.google_compute_reservation) as any[];
  const template = { status: 'READY', specific_reservation: [{ count: 8, instance_properties: [], source_instance_template: 'projects/acme-tpu-prod/global/instanceTemplates/v6e' }] };

  terraformTest("its size is still checked; its machine type is not refused as '' but noted as not checked", () => {
    expect(postconditions(r, template).ok).toBe(true);
    expect(failed(postconditions(r, { ...template, specific_reservation: [{ ...template.specific_reservation[0], count: 4 }] }))).toEqual([2]);
    const [, check] = Object.entries(infra.check)[0] as [string, any];
    const noted = plan({
      locals: { read: template },
      check: {
        note: {
          assert: check.assert.map((a: any) => ({
            condition: a.condition.replace(/data\.google_compute_reservation\.[\w-]+\./g, 'local.read.'),
            error_message: a.error_message.replace(/data\.google_compute_reservation\.[\w-]+\./g, 'local.read.'),
          })),
        },
      },
    });
    expect(noted.ok).toBe(true);
    expect(noted.output.replace(/\s+/g, ' ')).toContain(
      "Reservation 'acme-v6e-32' (RESERVATION (env)) in zone us-east5-b of project acme-tpu-prod is made from instance template projects/acme-tpu-prod/global/instanceTemplates/v6e: its machine type is in the template, which google provider 6.50 does not read, so it was NOT checked against the ct6e-standard-4t VMs of tpu-v6e-32-0 (its size was).",
    );
    expect(noted.output).not.toContain('holds 8 VMs of');
  });
});

describe('ZONE offers the TPU machine types at plan time (google_compute_machine_types)', () => {
  const infra = synthStack('infra', { ...REAL, SINGLE_HOST_RESERVATION: 'acme-v6e-8', PIPELINES: 'none' });
  const lists = Object.values(infra.data.google_compute_machine_types) as any[];

  test('one list per TPU machine type of the pools, in ZONE, filtered by name, read only once no placeholder is left', () => {
    expect(lists.map((l) => [l.zone, l.project, l.filter])).toEqual([
      ['us-east5-b', 'acme-tpu-prod', 'name = "ct6e-standard-4t"'],
      ['us-east5-b', 'acme-tpu-prod', 'name = "ct6e-standard-8t"'],
    ]);
    for (const l of lists) expect(l.lifecycle.precondition).toEqual([expect.objectContaining({ condition: '${length(local.preflight_placeholders) == 0}' })]);
    // Spot capacity has no reservation to check: the zone is still checked.
    const spot = synthStack('infra', { ...REAL, RESERVATION: '', TPU_CAPACITY: 'spot', REGION: 'africa-south1', ZONE: 'africa-south1-a', PIPELINES: 'none' });
    expect(spot.data.google_compute_reservation).toBeUndefined();
    expect((Object.values(spot.data.google_compute_machine_types) as any[]).map((l) => l.zone)).toEqual(['africa-south1-a']);
  });

  terraformTest('a zone that lists the machine type passes; one that lists none fails the plan, naming the zone and the fix', () => {
    const [v6e] = lists;
    expect(postconditions(v6e, { machine_types: [{ name: 'ct6e-standard-4t' }] }).ok).toBe(true);
    const none = postconditions(v6e, { machine_types: [] });
    expect(failed(none)).toEqual([0]);
    expect(none.output.replace(/\s+/g, ' ')).toContain(
      'Zone us-east5-b offers no ct6e-standard-4t VMs to project acme-tpu-prod: its TPU node pools would never get a node (and would fail after the cluster is created). Set ZONE to a zone that offers them',
    );
  });
});

describe('the GKE version floor of the pools\' TPU generations', () => {
  test('tpu7x pools set the cluster\'s minimum version to the floor\'s minor alias 1.34 (floor 1.34.0-gke.2201000, the TPU table), never one patch; v6e pools set none', () => {
    const tpu7x = synthStack('infra', { ...REAL, COMPUTE_TYPE: 'tpu7x-standard-4t', TOPOLOGY: '2x2x4', RESERVATION: 'acme-tpu7x', PIPELINES: 'none' });
    const [cluster] = Object.values(tpu7x.resource.google_container_cluster) as any[];
    expect(cluster.min_master_version).toBe('1.34');
    const [v6e] = Object.values(synthStack('infra', { ...REAL, PIPELINES: 'none' }).resource.google_container_cluster) as any[];
    expect(v6e.min_master_version).toBeUndefined();
  });
});

test('minMasterVersionOf: the minor version of a floor (GKE accepts 1.X as initialClusterVersion), never a patch; a non-version refused', () => {
  expect(minMasterVersionOf('1.34.0-gke.2201000')).toBe('1.34');
  expect(minMasterVersionOf('1.35.1')).toBe('1.35');
  expect(() => minMasterVersionOf('latest')).toThrow("not a GKE version: 'latest'");
});

describe('before a pipeline deploys: the token has a version, the images exist', () => {
  const stack = synthStack('rl-qwen3', REAL);

  test('the token version is read as metadata only: fetch_secret_data = false, no secret_data anywhere', () => {
    const [version] = Object.values(stack.data.google_secret_manager_secret_version) as any[];
    expect(version).toMatchObject({ secret: 'tpu-post-train-hf-token', project: 'acme-tpu-prod', fetch_secret_data: false });
    expect(JSON.stringify(stack)).not.toMatch(/"secret_data"|secret_version_access/);
    expect(version.lifecycle.postcondition[0].error_message).toContain("gcloud secrets versions add tpu-post-train-hf-token --project=acme-tpu-prod --data-file=-");
  });

  terraformTest('a destroyed newest version fails with the command that adds one', () => {
    const [version] = Object.values(stack.data.google_secret_manager_secret_version) as any[];
    expect(postconditions(version, { destroy_time: '', name: 'projects/1/secrets/hf-token/versions/3' }).ok).toBe(true);
    expect(postconditions(version, { destroy_time: null, name: 'projects/1/secrets/hf-token/versions/3' }).ok).toBe(true);
    const destroyed = postconditions(version, { destroy_time: '2026-11-30T10:00:00Z' });
    expect(failed(destroyed)).toEqual([0]);
    expect(destroyed.output).toMatch(/The newest version of secret 'tpu-post-train-hf-token' in project\s+acme-tpu-prod is destroyed/);
  });

  test('every Artifact Registry image the pods pull is looked up (tag or digest)', () => {
    const images = Object.values(stack.data.google_artifact_registry_docker_image) as any[];
    expect(images.map((i) => [i.project, i.location, i.repository_id, i.image_name])).toEqual([
      ['cloud-tpu-images', 'us', 'maxtext-images', 'tpu_post_training:0.2.4'],
      ['cloud-tpu-v2-images', 'us', 'pathways', expect.stringMatching(/^proxy_server:/)],
      ['cloud-tpu-v2-images', 'us', 'pathways', expect.stringMatching(/^server:/)],
    ]);
  });

  test('an image outside Artifact Registry is not looked up (no data source can tell)', () => {
    const s = synthStack('rl-llama3', { ...REAL, SINGLE_HOST_RESERVATION: 'acme-v6e-8', CLOUD_IMAGE_NAME: 'ghcr.io/acme/maxtext:1.0' });
    expect(s.data.google_artifact_registry_docker_image).toBeUndefined();
  });
});
