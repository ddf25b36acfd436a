// `node --import ./test/runner/ts-loader/register.mjs`: the hooks of hooks.mjs for this process.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
