import { Validator } from '@seriousme/openapi-schema-validator';
import { mergeAndNormalize, toSchema31 } from '../src/normalize';
import { openApiDocument } from '../src';

const fragment = (paths: Record<string, unknown>, schemas: Record<string, unknown> = {}) => ({
  openapi: '3.0.0',
  paths,
  components: { schemas },
});

const op = (id: string, extra: Record<string, unknown> = {}) => ({
  operationId: id,
  tags: ['Things'],
  responses: { '200': { description: 'Ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
  ...extra,
});

const thing = { type: 'object', properties: { name: { type: 'string', nullable: true } }, required: ['name'] };

describe('mergeAndNormalize', () => {
  it('marks every operation with its service and keeps its tag', () => {
    const doc = mergeAndNormalize(
      [
        { service: 'a', spec: fragment({ '/x': { get: op('GetX') } }, { Thing: thing }) },
        {
          service: 'b',
          spec: fragment(
            { '/y': { post: op('PostY', { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } }) } },
            { Thing: thing },
          ),
        },
      ],
      { title: 't', version: '1.0.0' },
    ) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/x'].get['x-service']).toBe('a');
    expect(doc.paths['/y'].post['x-service']).toBe('b');
    expect(doc.paths['/x'].get.tags).toEqual(['Things']);
  });

  it('offers every body and 200 in the three media types', () => {
    const doc = mergeAndNormalize(
      [
        {
          service: 'a',
          spec: fragment(
            { '/y': { post: op('PostY', { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } }) } },
            { Thing: thing },
          ),
        },
      ],
      { title: 't', version: '1.0.0' },
    ) as any;
    const post = doc.paths['/y'].post;
    expect(Object.keys(post.requestBody.content)).toEqual(['application/json', 'text/plain', 'multipart/form-data']);
    expect(Object.keys(post.responses['200'].content)).toEqual(['application/json', 'text/plain', 'multipart/form-data']);
    expect(post.responses['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' });
  });

  it('keeps a declared non-JSON response, such as a download, as it is', () => {
    const download = {
      operationId: 'GetBlob',
      responses: { '200': { description: 'Ok', content: { 'application/octet-stream': { schema: { type: 'string', format: 'byte' } } } } },
    };
    const doc = mergeAndNormalize([{ service: 'a', spec: fragment({ '/blob': { get: download } }) }], { title: 't', version: '1.0.0' }) as any;
    expect(doc.paths['/blob'].get.responses['200'].content).toEqual({ 'application/octet-stream': { schema: { type: 'string', format: 'byte' } } });
  });

  it('refuses two services serving the same method and path', () => {
    expect(() =>
      mergeAndNormalize(
        [
          { service: 'a', spec: fragment({ '/x': { get: op('One') } }) },
          { service: 'b', spec: fragment({ '/x': { get: op('Two') } }) },
        ],
        { title: 't', version: '1' },
      ),
    ).toThrow(/GET \/x is served by two services/);
  });

  it('produces a document the OpenAPI 3.1 schema accepts', async () => {
    const doc = mergeAndNormalize([{ service: 'a', spec: fragment({ '/x': { get: op('GetX') } }, { Thing: thing }) }], { title: 't', version: '1.0.0' });
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(validator.version).toBe('3.1');
  });
});

describe('toSchema31', () => {
  it('turns nullable into a type array', () => {
    expect(toSchema31({ type: 'string', nullable: true })).toEqual({ type: ['string', 'null'] });
  });

  it('turns a nullable reference into oneOf with null', () => {
    expect(toSchema31({ allOf: [{ $ref: '#/x' }], nullable: true })).toEqual({ oneOf: [{ allOf: [{ $ref: '#/x' }] }, { type: 'null' }] });
  });

  it('adds null to a nullable enum', () => {
    expect(toSchema31({ type: 'string', enum: ['a'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', null] });
  });

  it('turns example into examples, deep inside properties and items', () => {
    expect(toSchema31({ type: 'array', items: { type: 'object', properties: { n: { type: 'number', example: 3 } } } })).toEqual({
      type: 'array',
      items: { type: 'object', properties: { n: { type: 'number', examples: [3] } } },
    });
  });
});

describe('the committed document', () => {
  it('is valid OpenAPI 3.1.0', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(openApiDocument));
    expect(result.errors).toBeUndefined();
    expect(openApiDocument.openapi).toBe('3.1.0');
  });

  it('declares bearerAuth, serviceOAuth and nodeSignature and gives every operation an x-service and a tag', () => {
    const doc = openApiDocument as any;
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearerAuth', 'nodeSignature', 'serviceOAuth']);
    for (const item of Object.values<any>(doc.paths)) {
      for (const operation of Object.values<any>(item)) {
        expect(typeof operation['x-service']).toBe('string');
        expect(operation.tags.length).toBeGreaterThan(0);
      }
    }
  });
});
