import { libraryConfig } from '../../tsdown.base.ts';

// jose 6 is ESM-only: inlined into the CommonJS build so `require('@plumbline/auth')` works under
// Jest's module loader too (see the README's "CommonJS and Jest").
export default libraryConfig(['index', 'express', 'fastify', 'hono', 'issuer'], { bundleInCjs: ['jose'] });
