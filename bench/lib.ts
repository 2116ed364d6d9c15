/** Shared by the bench scripts: run main, exit 0 when it finishes, 1 with the error printed otherwise. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
