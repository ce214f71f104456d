import { Construct } from 'constructs';
import { BuiltinData } from './builtin-data';

/**
 * A built-in `terraform_data` resource holding a hash: a change of the hash plans an update of this resource, which
 * `lifecycle.replace_triggered_by` turns into a replacement of whatever references it.
 */
export class SpecHash extends BuiltinData {
  constructor(scope: Construct, id: string, sha256: string) {
    super(scope, id, { sha256 });
  }
}
