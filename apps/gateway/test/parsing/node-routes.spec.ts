/** The node API's routes are all a node host reaches through the gateway. */
import { isNodeApiRoute } from '../../src/ingress/node-routes';

describe('isNodeApiRoute', () => {
  it.each([
    ['GET', '/job/J1/ops'],
    ['GET', '/job/J1/results'],
    ['GET', '/job/J1/ops/web/logs'],
    ['POST', '/job/J1/group/g1/stop'],
    ['POST', '/job/J1/group/g1/restart'],
    ['POST', '/job/J1/group/g1/operation/op1/stop'],
    ['POST', '/job/J1/group/g1/operation/op1/restart'],
    ['GET', '/healthz'],
    ['GET', '/readyz'],
    ['HEAD', '/healthz'],
    ['HEAD', '/job/J1/results'],
    ['GET', '/job/J1/ops?tail=10'],
    ['GET', '/job/a%20b/ops'],
  ])('lets %s %s through', (method, url) => {
    expect(isNodeApiRoute(method, url)).toBe(true);
  });

  it.each([
    // the right path with another method
    ['POST', '/job/J1/ops'],
    ['POST', '/job/J1/results'],
    ['POST', '/job/J1/ops/web/logs'],
    ['GET', '/job/J1/group/g1/stop'],
    ['GET', '/job/J1/group/g1/operation/op1/restart'],
    ['POST', '/healthz'],
    ['DELETE', '/readyz'],
    [undefined, '/healthz'],
    // paths that are no route, or only look like one
    ['GET', '/'],
    ['GET', '/job/J1'],
    ['GET', '/job//ops'],
    ['GET', '/job/J1/ops/extra'],
    ['GET', '/x/job/J1/ops'],
    ['GET', '/job/J1/opsx'],
    ['GET', '/job/J1/secrets'],
    ['GET', '/job/J1/ops/web/logsx'],
    ['GET', '/job/J1/ops/web/logs/more'],
    ['POST', '/job/J1/group/g1/kill'],
    ['POST', '/job/J1/group/g1/stopx'],
    ['POST', '/job/J1/group/g1/operation/op1/kill'],
    ['POST', '/job/J1/group/g1/operation/op1/restart/x'],
    ['GET', '/healthzx'],
    ['GET', '/x/healthz'],
    ['GET', '/readyz/x'],
    ['GET', 'healthz'],
    ['GET', '/job/J1#/ops'],
    ['GET', undefined],
  ])('refuses %s %s', (method, url) => {
    expect(isNodeApiRoute(method, url)).toBe(false);
  });

  it.each([
    ['/job/../ops'],
    ['/job/./ops'],
    ['/job/%2e%2e/ops'],
    ['/job/%2E/ops'],
    ['/job/a%2Fb/ops'],
    ['/job/a%5Cb/ops'],
    ['/job/a%00b/ops'],
    ['/job/%E0%A4%A/ops'],
    ['/job/J1/ops/%2e%2e/logs'],
  ])('refuses a segment that could climb out of the route: %s', (url) => {
    expect(isNodeApiRoute('GET', url)).toBe(false);
  });
});
