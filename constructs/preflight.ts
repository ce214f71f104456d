import { DataGoogleArtifactRegistryDockerImage } from '@cdktf/provider-google/lib/data-google-artifact-registry-docker-image';
import { DataGoogleComputeMachineTypes } from '@cdktf/provider-google/lib/data-google-compute-machine-types';
import { DataGoogleComputeReservation } from '@cdktf/provider-google/lib/data-google-compute-reservation';
import { DataGoogleSecretManagerSecretVersion } from '@cdktf/provider-google/lib/data-google-secret-manager-secret-version';
import { Precondition, TerraformElement, TerraformLocal } from 'cdktf';
import { Construct } from 'constructs';
import { parseReservation } from '../jobs/capacity';
import { artifactRegistryImage } from '../jobs/image-ref';
import { PLACEHOLDERS_LOCAL, PlaceholderRef } from '../jobs/platform';
import { BuiltinData } from './builtin-data';

/**
 * Plan-time checks: every one fails `terraform plan` (and so `cdktf deploy`, which plans first) before anything is
 * created, with a message that says what to fix. Nothing here needs the cluster.
 *
 * Placeholders: a `terraform_data` (Terraform's built-in resource: no provider, no credentials, no API call) with one
 * precondition whose condition is the list of placeholders found at synth being empty. Chosen over a `check` block
 * (its failures are warnings: the apply would go on) and over a postcondition on the google provider's first data
 * source (that data source is read with the placeholder project first, so the user would see the API's 403/404
 * before, or instead of, the name of the variable to set). Terraform evaluates a precondition whose inputs are known
 * during the plan, and a failed plan applies nothing, so no resource needs to depend on it. The example config
 * still synthesizes offline: the check is in the JSON, it runs only when a plan does.
 *
 * Data sources of hashicorp/google v6.50.0 (`google/services/...` in hashicorp/terraform-provider-google):
 * - `google_compute_reservation` (compute/data_source_google_compute_reservation.go): `name` + `zone` (+ `project`
 *   for a shared reservation). On a 404 the resource read clears the id and returns no error, so a missing
 *   reservation reads as empty attributes: the postconditions name it. `specific_reservation[0].count` and
 *   `.instance_properties[0].machine_type` are the reservation's size and VM shape (empty for a reservation made
 *   from an instance template, which the machine-type check then reports); `.in_use_count` (computed, the API's
 *   `specificReservation.inUseCount`; `inUseCount` in @cdktf/provider-google 16.12.1's binding of that schema) the VMs
 *   that consume it now, so `count - in_use_count` is what a new pool can get.
 * - `google_secret_manager_secret_version` (secretmanager/data_source_secret_manager_secret_version.go): GETs
 *   `versions/latest` (metadata) and only when `fetch_secret_data` is true (its default) calls `:access` and stores
 *   `secret_data`. With `fetch_secret_data = false` the token never enters state. A secret with no version fails the
 *   read (the API's 404 names the secret). The data source hard-codes `enabled = true`, so a DISABLED latest version
 *   cannot be told from an enabled one here; `destroy_time` is set for a destroyed one, which the postcondition
 *   refuses. v6.50.0 has no data source that lists a secret's versions (`google_secret_manager_secrets` lists secrets).
 * - `google_artifact_registry_docker_image` (artifactregistry/data_source_artifact_registry_docker_image.go): finds
 *   `image_name` (`name:tag` or `name@sha256:...`) in a repository; a missing image fails the read. Only images in
 *   Artifact Registry (`<location>-docker.pkg.dev/<project>/<repo>/<image>`) can be checked this way.
 */

export type { PlaceholderRef };

/** An HCL string literal inside an interpolation (`${` and `%{` escaped). */
function hclString(value: string): string {
  return JSON.stringify(value).replace(/\$\{/g, '$$$${').replace(/%\{/g, '%%{');
}

export interface PlaceholderGuardProps {
  /** Placeholders found in the config (config/load.ts `findPlaceholders`). */
  readonly placeholders: readonly PlaceholderRef[];
}

/**
 * `terraform_data.preflight`: fails the plan, naming each placeholder and its variable, before anything exists. The
 * list lives in a local (`locals { preflight_placeholders = [...] }`): Terraform refuses a condition that refers to
 * no object ("must refer to at least one object from elsewhere in the configuration"), so the condition reads it.
 */
export class PlaceholderGuard extends Construct {
  public readonly guard: BuiltinData;
  /** The same check for the data sources that call Google APIs: they are not read while a placeholder is left. */
  public readonly precondition: Precondition;

  constructor(scope: Construct, id: string, props: PlaceholderGuardProps) {
    super(scope, id);
    const found = props.placeholders.map((p) => p.description);
    const list = new TerraformLocal(this, 'list', found);
    list.overrideLogicalId(PLACEHOLDERS_LOCAL);
    this.precondition = {
      condition: `\${length(local.${PLACEHOLDERS_LOCAL}) == 0}`,
      errorMessage:
        found.length === 0
          ? 'The config holds no example placeholders.'
          : `The config still holds the example config's placeholders: ${found.join('; ')}. ` +
            'Set these variables (or the keys in your CONFIG_FILE) to your own values; nothing was created.',
    };
    // BuiltinData, not cdktf's DataResource: no `terraform version` child process per instance at synth.
    this.guard = new BuiltinData(this, 'placeholders', { placeholders: list.asList }, { precondition: [this.precondition] });
  }
}

import type { ReservationUse } from '../jobs/capacity';
export type { ReservationUse };

export interface ReservationChecksProps {
  readonly project: string;
  readonly zone: string;
  readonly uses: readonly ReservationUse[];
  /** PlaceholderGuard.precondition: no API call while a placeholder is left. */
  readonly precondition: Precondition;
}

/** Construct id of a reservation's check: stable per reservation reference. */
function reservationId(ref: string): string {
  return ref.replace(/^projects\//, '').replace(/\/reservations\//, '-');
}

/**
 * A Terraform `check` block (Terraform >= 1.5): its failed assertions are warnings, printed by the plan, that never stop
 * it. The plan-time notes: what a check could not verify.
 */
export class TerraformCheck extends TerraformElement {
  constructor(
    scope: Construct,
    id: string,
    private readonly asserts: ReadonlyArray<{ readonly condition: string; readonly errorMessage: string }>,
  ) {
    super(scope, id);
  }

  /** The block's name in `check "<name>"`. */
  get name(): string {
    return this.friendlyUniqueId;
  }

  public toTerraform(): any {
    return { check: { [this.friendlyUniqueId]: { assert: this.asserts.map((a) => ({ condition: a.condition, error_message: a.errorMessage })) } } };
  }
}

/** An HCL map literal of strings, e.g. `{"a" = "b"}`. */
function hclMap(entries: Readonly<Record<string, string>>): string {
  return `{${Object.entries(entries)
    .map(([k, v]) => `${hclString(k)} = ${hclString(v)}`)
    .join(', ')}}`;
}

/**
 * One `google_compute_reservation` data source per reservation: it exists in ZONE, is for the pools' machine type,
 * and holds at least the VMs of every slice bound to it. Read at plan time: seconds, not a 15-minute cluster create
 * followed by pools that never get nodes.
 *
 * Aggregate reservations (Compute `aggregateReservation`: a TPU VM family and a chip count, no
 * `specificReservation`) read, in provider v6.50.0, as a found reservation with an empty `specific_reservation`
 * (resource_compute_reservation.go flattens only `specificReservation` and has no aggregate field): the machine-type
 * and size checks cannot see them, so they pass, and a `check` block prints a warning saying what was not checked.
 * A shared reservation (`projects/<owner>/reservations/<name>`) is read in its owner project.
 */
export class ReservationChecks extends Construct {
  public readonly reservations: readonly DataGoogleComputeReservation[];
  /** One warning per reservation when it is not a specific reservation (aggregate): what could not be checked. */
  public readonly notes: readonly TerraformCheck[];

  constructor(scope: Construct, id: string, props: ReservationChecksProps) {
    super(scope, id);
    const notes: TerraformCheck[] = [];
    this.reservations = props.uses.map((use) => {
      const ref = parseReservation(use.reservation);
      if (!ref) throw new Error(`reservation check: '${use.reservation}' is not a reservation reference`);
      const owner = ref.project ?? props.project;
      const where = `zone ${props.zone} of project ${owner}`;
      const pools = use.pools.join(', ');
      const machineType = 'try(self.specific_reservation[0].instance_properties[0].machine_type, "")';
      const count = 'try(self.specific_reservation[0].count, 0)';
      const inUse = 'try(self.specific_reservation[0].in_use_count, 0)';
      const specific = 'try(length(self.specific_reservation), 0) > 0';
      // Made from an instance template (`specific_reservation.source_instance_template`, exactly one of it and
      // instance_properties, resource_compute_reservation.go v6.50.0): the machine type is in the template.
      const template = 'try(self.specific_reservation[0].source_instance_template, "")';
      const generic = `Use a reservation of ${use.machineType} VMs, or change COMPUTE_TYPE/TOPOLOGY to what the reservation holds`;
      const fix =
        use.fixes && Object.keys(use.fixes).length > 0
          ? `\${lookup(${hclMap(use.fixes)}, "\${${machineType}}/\${${count}}", lookup(${hclMap(use.fixes)}, ${machineType}, ${hclString(generic)}))}`
          : generic;
      const reservation = new DataGoogleComputeReservation(this, reservationId(use.reservation), {
        name: ref.name,
        zone: props.zone,
        project: owner,
        lifecycle: {
          precondition: [props.precondition],
          postcondition: [
            {
              condition: '${self.status != null && self.status != ""}',
              errorMessage:
                `Reservation '${ref.name}' (${use.env}) was not found in ${where}. A reservation is zonal: set ZONE to its zone, ` +
                `or ${use.env} to its name (a shared one as projects/<owner>/reservations/<name>); list them with ` +
                `gcloud compute reservations list --project=${owner}.`,
            },
            {
              condition: `\${!(${specific}) || ${template} != "" || ${machineType} == ${hclString(use.machineType)}}`,
              errorMessage:
                `Reservation '${ref.name}' (${use.env}) in ${where} holds \${${count}} VMs of '\${${machineType}}', not ${use.machineType}, ` +
                `the machine type of ${pools}: GKE would create the pools but never get a node. To fit it: ${fix}.`,
            },
            {
              condition: `\${!(${specific}) || ${count} >= ${use.vms}}`,
              errorMessage:
                `Reservation '${ref.name}' (${use.env}) in ${where} holds fewer than the ${use.vms} VMs of ${pools}: a multi-host ` +
                'slice is created whole or not at all. Lower CLUSTER_NODEPOOL_COUNT or TOPOLOGY, or grow the reservation.',
            },
            {
              // Free VMs, not the size: a half-used reservation passed the size check and the pool create timed out
              // (68 min) and was tainted. Once these pools run, their own VMs are in use, so a reservation whose
              // in-use VMs already cover the pools passes (this cannot tell the pools' VMs from another consumer's).
              condition: `\${!(${specific}) || ${count} < ${use.vms} || ${count} - ${inUse} >= ${use.vms} || ${inUse} >= ${use.vms}}`,
              errorMessage:
                `Reservation '${ref.name}' (${use.env}) in ${where} has \${${count} - ${inUse}} of its \${${count}} VMs free ` +
                `(\${${inUse}} in use), fewer than the ${use.vms} VMs of ${pools}: the pool create would wait for capacity until it ` +
                'times out. Free VMs in the reservation (gcloud compute reservations describe), use another one, or lower ' +
                'CLUSTER_NODEPOOL_COUNT or TOPOLOGY.',
            },
          ],
        },
      });
      const ds = `data.${DataGoogleComputeReservation.tfResourceType}.${reservation.friendlyUniqueId}`;
      notes.push(
        new TerraformCheck(this, `${reservationId(use.reservation)}-specific`, [
          {
            condition: `\${try(length(${ds}.specific_reservation), 0) > 0 || try(${ds}.status, "") == ""}`,
            errorMessage:
              `Reservation '${ref.name}' (${use.env}) in ${where} is not a specific reservation (an aggregate TPU reservation, which ` +
              `google provider 6.50 cannot read): its VM family and size were NOT checked against the ${use.vms} ${use.machineType} VMs of ${pools}. ` +
              `Compare them yourself: gcloud compute reservations describe ${ref.name} --zone=${props.zone} --project=${owner} ` +
              '(aggregateReservation.vmFamily and reservedResources).',
          },
          {
            condition: `\${try(${ds}.specific_reservation[0].source_instance_template, "") == ""}`,
            errorMessage:
              `Reservation '${ref.name}' (${use.env}) in ${where} is made from instance template ` +
              `\${try(${ds}.specific_reservation[0].source_instance_template, "")}: its machine type is in the template, which google provider 6.50 ` +
              `does not read, so it was NOT checked against the ${use.machineType} VMs of ${pools} (its size was). ` +
              `Compare it yourself: gcloud compute instance-templates describe <template> --project=${owner} (properties.machineType).`,
          },
        ]),
      );
      return reservation;
    });
    this.notes = notes;
  }
}

export interface PipelinePreflightProps {
  readonly project: string;
  /** Secret Manager secret that must hold an enabled token version. */
  readonly hfTokenSecretId: string;
  /** Every image the pipeline's pods pull; those in Artifact Registry are checked. */
  readonly images: readonly string[];
  /** PlaceholderGuard.precondition: no API call while a placeholder is left. */
  readonly precondition: Precondition;
  /** The command that adds the token version (for the message). */
  readonly secretCommand: string;
}

/** Before a pipeline deploys: the token has a version (metadata only, never its value), and the images exist. */
export class PipelinePreflight extends Construct {
  public readonly tokenVersion: DataGoogleSecretManagerSecretVersion;
  public readonly images: readonly DataGoogleArtifactRegistryDockerImage[];

  constructor(scope: Construct, id: string, props: PipelinePreflightProps) {
    super(scope, id);
    this.tokenVersion = new DataGoogleSecretManagerSecretVersion(this, 'hf-token-version', {
      project: props.project,
      secret: props.hfTokenSecretId,
      // Metadata only: the token's value is never read into state or a plan.
      fetchSecretData: false,
      lifecycle: {
        precondition: [props.precondition],
        postcondition: [
          {
            condition: '${self.destroy_time == null || self.destroy_time == ""}',
            errorMessage:
              `The newest version of secret '${props.hfTokenSecretId}' in project ${props.project} is destroyed: the pods would ` +
              `get no Hugging Face token. Add one: ${props.secretCommand}`,
          },
        ],
      },
    });
    const seen = new Set<string>();
    const images: DataGoogleArtifactRegistryDockerImage[] = [];
    for (const image of props.images) {
      const ar = artifactRegistryImage(image);
      if (!ar || seen.has(image)) continue;
      seen.add(image);
      const nameAndVersion = ar.tagOrDigest.startsWith('sha256:') ? `${ar.image}@${ar.tagOrDigest}` : `${ar.image}:${ar.tagOrDigest}`;
      images.push(
        new DataGoogleArtifactRegistryDockerImage(this, `image-${images.length}`, {
          project: ar.project,
          location: ar.location,
          repositoryId: ar.repository,
          imageName: nameAndVersion,
          lifecycle: {
            precondition: [props.precondition],
            postcondition: [
              {
                condition: '${self.self_link != null && self.self_link != ""}',
                errorMessage: `Image ${image} was not found in Artifact Registry: set CLOUD_IMAGE_NAME (or pipelines.<name>.image) to an image that exists.`,
              },
            ],
          },
        }),
      );
    }
    this.images = images;
  }
}

export interface AcceleratorZoneChecksProps {
  readonly project: string;
  readonly zone: string;
  /** The TPU machine types the pools use (one data source each). */
  readonly machineTypes: readonly string[];
  /** PlaceholderGuard.precondition: no API call while a placeholder is left. */
  readonly precondition: Precondition;
}

/**
 * One `google_compute_machine_types` data source per TPU machine type (compute/data_source_google_compute_machine_types.go,
 * hashicorp/google v6.50.0: `MachineTypes.List(project, zone)` with `filter`, every page): ZONE lists the machine type,
 * or the plan fails before anything is created. A GKE TPU node pool is made of these Compute machine types, so a zone
 * without them (africa-south1-a has no TPU) is a pool that never gets a node; with spot or flex-start capacity no
 * reservation check would catch it. (v6.50.0 also has `google_tpu_v2_accelerator_types`, the TPU VM API's list, which
 * @cdktf/provider-google 16.12.1 does not bind; the machine types are what GKE uses.)
 */
export class AcceleratorZoneChecks extends Construct {
  public readonly machineTypes: readonly DataGoogleComputeMachineTypes[];

  constructor(scope: Construct, id: string, props: AcceleratorZoneChecksProps) {
    super(scope, id);
    this.machineTypes = props.machineTypes.map(
      (machineType) =>
        new DataGoogleComputeMachineTypes(this, machineType, {
          project: props.project,
          zone: props.zone,
          filter: `name = "${machineType}"`,
          lifecycle: {
            precondition: [props.precondition],
            postcondition: [
              {
                condition: '${length(self.machine_types) > 0}',
                errorMessage:
                  `Zone ${props.zone} offers no ${machineType} VMs to project ${props.project}: its TPU node pools would never get a node ` +
                  '(and would fail after the cluster is created). Set ZONE to a zone that offers them; list them with ' +
                  `gcloud compute machine-types list --filter="name=${machineType}" --project=${props.project}.`,
              },
            ],
          },
        }),
    );
  }
}
