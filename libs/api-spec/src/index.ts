import document from '../openapi.json';
import jobDefinitionSchema from '../job-definition.schema.json';

export { document as openApiDocument, jobDefinitionSchema };
export * from './routes';
export * from './normalize';
