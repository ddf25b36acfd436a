/**
 * A mistake the operator can fix in configuration (a setting, the catalogue, the plugin list):
 * the gateway stops with this one line, naming the file and the path at fault, and no stack
 * trace. Anything else that stops the start is a bug and keeps its stack.
 */
export class BootError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BootError';
  }
}
