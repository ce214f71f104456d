/** Reads the MaxText calls out of a synthesized container script (tests only). */

/** `python3 -m <module> k=v ... --flag=v` calls in a container script (continuation lines joined). */
export function maxTextCalls(script: string): Array<{ module: string; args: Record<string, string>; flags: Record<string, string> }> {
  // Continuation lines joined; the retry wrapper's redirections and `&` (a call run as a child) are not arguments.
  const joined = script.replace(/\\\n\s*/g, ' ').replace(/ (?:>&3 2>&3 )?&$/gm, '');
  const calls = [];
  for (const line of joined.split('\n')) {
    const m = /python3 -m (maxtext\.\S+)(.*)$/.exec(line);
    if (!m) continue;
    const args: Record<string, string> = {};
    const flags: Record<string, string> = {};
    for (const word of m[2].trim().split(/\s+(?=(?:--)?[\w.]+(?:=|$))/)) {
      const f = /^--([\w.]+)(?:=(.*))?$/.exec(word);
      if (f) flags[f[1]] = f[2] ?? 'true';
      else {
        const a = /^([\w.]+)=(.*)$/.exec(word);
        if (a) args[a[1]] = a[2];
      }
    }
    calls.push({ module: m[1], args, flags });
  }
  return calls;
}
