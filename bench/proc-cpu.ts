// The CPU a thread has used, from the text of its Linux /proc stat file (`/proc/<pid>/task/<tid>/stat`,
// `/proc/thread-self/stat`): user plus system time, fields 14 and 15 (proc(5)), counted after the command name's
// closing parenthesis, since the name may hold spaces. Shared by the A/B harness and the machine-speed probe.

/** Linux's unit of those times (USER_HZ): 10 ms steps. */
const TICK_MS = 10;

/** User plus system CPU in milliseconds from one stat file's text. */
export function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
