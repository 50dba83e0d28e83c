// Node has the WebAssembly global, but @types/node 20 does not declare it (lib.dom does, which this project does not
// load); this covers what json-lines.ts uses.
declare namespace WebAssembly {
  // A compiled module is only handed to Instance.
  // eslint-disable-next-line @typescript-eslint/no-extraneous-class
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
}
