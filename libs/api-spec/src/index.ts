import document from '../openapi.json';
import jobDefinitionSchema from '../job-definition.schema.json';
import nodeDocument from '../node-openapi.json';

export { document as openApiDocument, nodeDocument as nodeOpenApiDocument, jobDefinitionSchema };
export * from './routes';
export * from './normalize';
