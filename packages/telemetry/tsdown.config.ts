import { libraryConfig } from '../../tsdown.base.ts';

export default libraryConfig(['index', 'express', 'fastify', 'hono']);
