/**
 * constructs/cluster-data.ts stands in for provider-google's generated DataGoogleContainerCluster (2.2 MB of structs a
 * synth no longer loads): the same data source and the same references, in JSON and in HCL. The generated class is
 * loaded here, in the test only, as the reference.
 */
import { DataGoogleContainerCluster } from '@cdktf/provider-google/lib/data-google-container-cluster';
import { GoogleProvider } from '@cdktf/provider-google/lib/provider';
import { App, TerraformOutput, TerraformStack, Testing } from 'cdktf';
import { ClusterData } from '../../constructs/cluster-data';

const ATTRS = { name: 'tpu-post-train', location: 'us-east5', project: 'my-tpu-project' };

/** A stack with the data source as `cluster` and an output per reference a stack takes of it. */
function stackWith(make: (stack: TerraformStack) => { id: string; endpoint: string; dns: string; ca: string }, hcl = false): TerraformStack {
  const app = Testing.app(hcl ? { context: { hcl: true } } : {});
  const stack = new TerraformStack(app as App, 'pipeline');
  new GoogleProvider(stack, 'google', { project: ATTRS.project });
  const refs = make(stack);
  for (const [name, value] of Object.entries(refs)) new TerraformOutput(stack, name, { value });
  return stack;
}

const generated = (stack: TerraformStack) => {
  const d = new DataGoogleContainerCluster(stack, 'cluster', ATTRS);
  return { id: d.id, endpoint: d.endpoint, dns: d.controlPlaneEndpointsConfig.get(0).dnsEndpointConfig.get(0).endpoint, ca: d.masterAuth.get(0).clusterCaCertificate };
};
const lean = (stack: TerraformStack) => {
  const d = new ClusterData(stack, 'cluster', ATTRS);
  return { id: d.id, endpoint: d.endpoint, dns: d.dnsEndpoint, ca: d.clusterCaCertificate };
};

test('the JSON is the generated class\'s: arguments, generator metadata, and each reference', () => {
  const json = Testing.synth(stackWith(lean));
  expect(json).toEqual(Testing.synth(stackWith(generated)));
  const tf = JSON.parse(json);
  expect(tf.data.google_container_cluster.cluster).toMatchObject(ATTRS);
  expect(tf.output.ca.value).toBe('${data.google_container_cluster.cluster.master_auth[0].cluster_ca_certificate}');
  expect(tf.output.dns.value).toBe('${data.google_container_cluster.cluster.control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint}');
});

test('the HCL (cdktf synth --hcl) is the generated class\'s too', () => {
  const hcl = Testing.synthHcl(stackWith(lean, true));
  expect(hcl).toEqual(Testing.synthHcl(stackWith(generated, true)));
  expect(hcl).toContain('data "google_container_cluster" "cluster"');
  expect(hcl).toContain('location = "us-east5"');
});
