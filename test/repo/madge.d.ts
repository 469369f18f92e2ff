// madge ships no type declarations: the part of its API import-circles.test.ts uses.
declare module 'madge' {
  interface MadgeConfig {
    baseDir?: string;
    fileExtensions?: string[];
    tsConfig?: string;
    excludeRegExp?: RegExp[];
  }
  interface MadgeResult {
    /** Module path -> the project modules it imports, paths relative to `baseDir`. */
    obj(): Record<string, string[]>;
    /** Each circle as the modules on it, in import order. */
    circular(): string[][];
  }
  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
