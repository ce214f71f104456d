/** Terraform's `action_reason` values (hashicorp/terraform v1.11.4 internal/command/jsonplan/plan.go), in words. */
export const REASONS: Readonly<Record<string, string>> = {
  replace_by_triggers: 'replace_triggered_by: this step or an earlier one changed',
  replace_because_tainted: 'the resource is tainted',
  replace_by_request: 'requested with -replace',
  replace_because_cannot_update: 'an attribute cannot be updated in place',
  delete_because_no_resource_config: 'removed from the configuration',
  delete_because_wrong_repetition: 'count/for_each changed',
  delete_because_count_index: 'its count index is gone',
  delete_because_each_key: 'its for_each key is gone',
  delete_because_no_module: 'its module is gone',
  delete_because_no_move_target: 'its moved target is gone',
};
