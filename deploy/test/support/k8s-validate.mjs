// Validates Kubernetes objects (a JSON array on stdin) against the API schemas
// that kubernetes-models ships, and prints one line per problem as a JSON array.
// A separate process because the package is ESM only and jest runs CommonJS.
import { readFileSync } from 'node:fs';
import { Namespace, ConfigMap, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';

const models = [Namespace, ConfigMap, Service, Deployment, PodDisruptionBudget, HorizontalPodAutoscaler, Ingress];

const problems = [];
for (const object of JSON.parse(readFileSync(0, 'utf8'))) {
  const where = `${object.kind}/${object.metadata?.name}`;
  const Model = models.find((m) => m.is(object));
  if (!Model) {
    problems.push(`${where}: ${object.apiVersion} ${object.kind} is not a kind these manifests are checked for`);
    continue;
  }
  try {
    new Model(object).validate();
  } catch (err) {
    problems.push(`${where}: ${err.message}`);
  }
}
process.stdout.write(JSON.stringify(problems));
