// Validates Kubernetes objects against the model types of @kubernetes/client-node 1.4.0 (generated from the
// Kubernetes v1.34.0 OpenAPI spec: dist/gen/models/*.js `attributeTypeMap`): every field must be one the type
// declares, with a value of the declared kind (string, number, boolean, IntOrString, map, array, nested model),
// recursively. Prints a JSON list of problems ("<path>: ..."); an empty list means valid. Usage: node k8s-types.mjs <file>
// where <file> holds [{ "type": "V1Deployment", "object": {...} }, ...].
import * as fs from 'fs';
import * as k from '@kubernetes/client-node';

const problems = [];
function check(value, type, at) {
  if (value === undefined || value === null) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) return problems.push(`${at}: expected a list (${type})`);
    return value.forEach((v, i) => check(v, array[1], `${at}[${i}]`));
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value !== 'object' || Array.isArray(value)) return problems.push(`${at}: expected a map (${type})`);
    return Object.entries(value).forEach(([key, v]) => check(v, map[1], `${at}.${key}`));
  }
  switch (type) {
    case 'string':
      return typeof value === 'string' || problems.push(`${at}: expected a string, got ${JSON.stringify(value)}`);
    case 'number':
      return typeof value === 'number' || problems.push(`${at}: expected a number, got ${JSON.stringify(value)}`);
    case 'boolean':
      return typeof value === 'boolean' || problems.push(`${at}: expected a boolean, got ${JSON.stringify(value)}`);
    case 'IntOrString':
      return typeof value === 'number' || typeof value === 'string' || problems.push(`${at}: expected an int or string`);
    case 'any':
    case 'object':
      return;
    case 'Date':
      return typeof value === 'string' || problems.push(`${at}: expected a timestamp`);
  }
  const model = k[type];
  if (!model || !model.attributeTypeMap) return problems.push(`${at}: unknown type ${type}`);
  if (typeof value !== 'object' || Array.isArray(value)) return problems.push(`${at}: expected an object (${type})`);
  for (const [key, v] of Object.entries(value)) {
    const attr = model.attributeTypeMap.find((a) => a.baseName === key);
    if (!attr) problems.push(`${at}.${key}: not a field of ${type}`);
    else check(v, attr.type, `${at}.${key}`);
  }
}
for (const { type, object } of JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))) check(object, type, type);
process.stdout.write(JSON.stringify(problems));
