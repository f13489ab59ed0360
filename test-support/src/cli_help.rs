//! What a CLI's `--help` owes its user: every argument says what it does, and every command shows an
//! example of its use in its long help. Both binaries' tests walk their clap tree with [`problems`].

/// The arguments without help and the commands without an example in their long help, as `path:
/// problem` lines (empty when there is none). An example is an invocation: the binary's name, then the
/// command's path.
pub fn problems(cmd: &clap::Command) -> Vec<String> {
    let mut out = Vec::new();
    walk(cmd, cmd.get_name(), &mut out);
    out
}

fn walk(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" {
            continue;
        }
        if arg.get_help().is_none() && arg.get_long_help().is_none() {
            let name = arg.get_long().unwrap_or(id);
            out.push(format!("{path}: --{name} has no help"));
        }
    }
    let subs: Vec<_> = cmd
        .get_subcommands()
        .filter(|s| s.get_name() != "help")
        .collect();
    if subs.is_empty() {
        let long = [cmd.get_long_about(), cmd.get_after_long_help()]
            .into_iter()
            .flatten()
            .map(|s| s.to_string())
            .collect::<String>();
        if !long.contains(&format!("{path} ")) {
            out.push(format!(
                "{path}: no example (`{path} ...`) in its long help"
            ));
        }
    }
    for sub in subs {
        walk(sub, &format!("{path} {}", sub.get_name()), out);
    }
}

#[cfg(test)]
mod tests {
    use super::problems;
    use clap::{Arg, Command};

    #[test]
    fn an_argument_without_help_and_a_command_without_an_example_are_named() {
        let cmd = Command::new("tool")
            .subcommand(
                Command::new("run")
                    .arg(Arg::new("fast").long("fast"))
                    .arg(Arg::new("out").long("out").help("Where to write"))
                    .after_long_help("Example: tool run --out x"),
            )
            .subcommand(Command::new("check").about("Checks"));
        assert_eq!(
            problems(&cmd),
            [
                "tool run: --fast has no help",
                "tool check: no example (`tool check ...`) in its long help",
            ]
        );
    }
}
