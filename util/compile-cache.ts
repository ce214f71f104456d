/**
 * Node's on-disk module compile cache for the entry point that imports this first (main.ts): `module.enableCompileCache()`
 * (Node 22.1+, nodejs/node doc/api/module.md) keeps V8's compiled code of every CommonJS module it loads, so a synth
 * after the first no longer compiles cdktf and the ~12 MB of provider modules again. The cache sits in
 * `<os.tmpdir()>/node-compile-cache` (or NODE_COMPILE_CACHE) and is keyed on each file's content; Node 20 has no such
 * function and runs as before. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
import * as nodeModule from 'module';

const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
enable?.call(nodeModule);
