/** `google_*_iam_member` / `google_*_iam_binding`: who gets which role on what (project, bucket, secret, SA). */
import { list, resolveRefs, str, TfResource } from '../values';
import type { ChangeContext, ExtractContext, ResourceDescriber } from './types';

/** The facts this describer adds to a stack's model and reads of a change (review/model.ts StackFacts). */
type Facts = { readonly grants: readonly IamGrant[] };

export type IamScope = 'project' | 'bucket' | 'secret' | 'service-account' | 'other';

export interface IamGrant {
  readonly stack: string;
  readonly address: string;
  readonly member: string;
  readonly role: string;
  readonly scope: IamScope;
  /** The project, bucket, secret or service account the grant is on. */
  readonly target: string;
}

export const IAM_TYPE = /^google_.+_iam_(member|binding)$/;

function iamScope(type: string): IamScope {
  if (type.startsWith('google_project_iam')) return 'project';
  if (type.startsWith('google_storage_bucket_iam')) return 'bucket';
  if (type.startsWith('google_secret_manager_secret_iam')) return 'secret';
  if (type.startsWith('google_service_account_iam')) return 'service-account';
  return 'other';
}

function grants(r: TfResource, { stack, json }: ExtractContext): IamGrant[] {
  const a = r.attrs;
  const raw = str(a.bucket) ?? str(a.secret_id) ?? str(a.service_account_id) ?? str(a.project) ?? '';
  const target = resolveRefs(raw, json) || '(provider project)';
  const members = r.type.endsWith('_member') ? [a.member] : list(a.members);
  return members.map((member) => ({
    stack,
    address: r.address,
    member: resolveRefs(String(member ?? ''), json),
    role: resolveRefs(String(a.role ?? ''), json),
    scope: iamScope(r.type),
    target,
  }));
}

function grantText(g: IamGrant): string {
  return `${g.member} ${g.role} on ${g.scope} ${g.target}`;
}

function describe({ b, a }: ChangeContext<Facts>): string[] | undefined {
  const bg = b?.grants ?? [];
  const ag = a?.grants ?? [];
  if (!bg.length && !ag.length) return undefined;
  const bs = new Set(bg.map(grantText));
  const as = new Set(ag.map(grantText));
  return [
    ...[...as].filter((g) => !bs.has(g)).map((g) => `IAM grant added: ${g}`),
    ...[...bs].filter((g) => !as.has(g)).map((g) => `IAM grant removed: ${g}`),
  ];
}

/** Matches by pattern (every IAM member/binding type), not by a fixed list. */
export const iamMember: ResourceDescriber<Facts> & { matches(type: string): boolean } = {
  types: [],
  matches: (type) => IAM_TYPE.test(type),
  extract: (r, ctx) => ({ grants: grants(r, ctx) }),
  describe,
};
