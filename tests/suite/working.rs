//! Whether the server under test is still working, read from its CPU time: a test that
//! waits for something the server does in the background gives up once the server has
//! stopped working (then it is not coming), not after a fixed time that a loaded machine
//! may need.

use std::time::Duration;

/// The longest any such wait may take, whatever the server does.
pub const AT_MOST: Duration = Duration::from_secs(600);

/// CPU time the process has used so far, in clock ticks (utime + stime, /proc/PID/stat).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    // The fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')').expect("comm") + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of stat(5): 12 and 13 after the name.
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

/// Waits one second (the caller sends the server nothing meanwhile) and says whether the
/// server used no CPU at all in it. Working, even starved on a loaded machine, it uses
/// some: an idle server uses none (measured: 0 ticks in 3 s).
pub async fn idle_for_a_second(pid: u32) -> bool {
    let before = cpu_ticks(pid);
    tokio::time::sleep(Duration::from_secs(1)).await;
    cpu_ticks(pid) == before
}
