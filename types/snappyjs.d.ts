// snappyjs ships no types; this covers the two calls the project makes.
declare module 'snappyjs' {
  export function uncompress(input: Uint8Array, maxLength?: number): Uint8Array;
  export function compress(input: Uint8Array): Uint8Array;
}
