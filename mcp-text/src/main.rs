//! `mcp-text convert`: the library's conversions on the command line, stdin to stdout.
//!
//! Arguments are parsed by hand: the crate stays light for the tools that link it as a library.

use std::io::Write as _;
use std::process::ExitCode;

use mcp_text::{Format, Options};

#[cfg(target_os = "linux")]
mod cli_alloc;
mod cli_input;
mod cli_split;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOC: cli_alloc::CliAlloc = cli_alloc::CliAlloc;

const HELP: &str = "\
mcp-text: rich text as a model reads it (ADF, Confluence storage format, HTML, Markdown)

Usage:
  mcp-text convert --from FORMAT --to FORMAT [--pretty] [--plain] [FILE]
  mcp-text --help

Reads FILE (or stdin when there is none, or when FILE is -) and writes the converted text to stdout.
Markdown from adf or storage converts back losslessly (markers keep what Markdown cannot say);
Markdown from html is for reading only and has no markers.

Options:
  --from adf|storage|html|markdown   the input's format
  --to markdown|adf|storage          the output's format
  --pretty                           indent ADF output
  --plain                            Markdown without markers: for reading only, not converted back
                                     losslessly (always so from html)
  -h, --help                         this help

Examples:
  mcp-text convert --from adf --to markdown issue.json
  mcp-text convert --from markdown --to adf --pretty < edited.md > issue.json
  curl -s https://example.com/ | mcp-text convert --from html --to markdown
  mcp-text convert --from storage --to markdown page.xml

Exit status: 0 on success, 1 when the input cannot be read or converted, 2 on bad usage.
Warnings (what was read leniently) go to stderr.
";

struct Args {
    from: Format,
    to: Format,
    pretty: bool,
    plain: bool,
    file: Option<String>,
}

enum Parsed {
    Convert(Args),
    Help,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse(&args) {
        Ok(Parsed::Help) => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Ok(Parsed::Convert(args)) => convert(&args),
        Err(message) => {
            eprintln!("mcp-text: {message}\nTry `mcp-text --help`.");
            ExitCode::from(2)
        }
    }
}

fn parse(args: &[String]) -> Result<Parsed, String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(Parsed::Help);
    }
    let mut rest = args.iter();
    match rest.next().map(String::as_str) {
        Some("convert") => {}
        Some(other) => return Err(format!("unknown command `{other}` (expected `convert`)")),
        None => return Err("missing command (expected `convert`)".into()),
    }
    let (mut from, mut to, mut pretty, mut plain, mut file) = (None, None, false, false, None);
    while let Some(arg) = rest.next() {
        // `--from adf` and `--from=adf` alike.
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| match inline.clone().or_else(|| rest.next().cloned()) {
            Some(v) => v.parse::<Format>().map_err(|e| format!("{name}: {e}")),
            None => Err(format!("{name} needs a format")),
        };
        match flag {
            "--from" => from = Some(value("--from")?),
            "--to" => to = Some(value("--to")?),
            "--pretty" => pretty = true,
            "--plain" => plain = true,
            "-" => file = set_file(file, arg)?,
            _ if flag.starts_with('-') => return Err(format!("unknown option `{arg}`")),
            _ => file = set_file(file, arg)?,
        }
    }
    let from = from.ok_or("missing --from FORMAT")?;
    let to = to.ok_or("missing --to FORMAT")?;
    if to == Format::Html {
        return Err(
            "--to html: HTML is an input format only (write markdown, adf or storage)".into(),
        );
    }
    if pretty && to != Format::Adf {
        return Err("--pretty applies to --to adf only".into());
    }
    if plain && to != Format::Markdown {
        return Err("--plain applies to --to markdown only".into());
    }
    Ok(Parsed::Convert(Args {
        from,
        to,
        pretty,
        plain,
        file: file.filter(|f| f != "-"),
    }))
}

fn set_file(previous: Option<String>, arg: &str) -> Result<Option<String>, String> {
    match previous {
        Some(first) => Err(format!(
            "one input file at most (got `{first}` and `{arg}`)"
        )),
        None => Ok(Some(arg.to_string())),
    }
}

fn convert(args: &Args) -> ExitCode {
    let name = args.file.as_deref().unwrap_or("<stdin>");
    // The whole input at once: the readers want all of it, and reading line by line only costs.
    let input = cli_input::read(args.file.as_deref());
    let input = match input {
        Ok(input) => input,
        Err(e) => {
            eprintln!("mcp-text: {name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let written = if args.from == Format::Adf
        && args.to == Format::Markdown
        && input.len() >= cli_split::FROM_BYTES
    {
        let options = mcp_text::markdown::WriteOptions {
            mentions: None,
            plain: args.plain,
        };
        match cli_split::adf_to_markdown(&input, &options) {
            Some(parts) => Some(write_parts(parts)),
            None => whole(input, args, name),
        }
    } else {
        streamed(&input, args, name)
    };
    // `None`: the conversion failed, and said why.
    let Some(written) = written else {
        return ExitCode::FAILURE;
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped early (`| head`) is not a failure of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-text: <stdout>: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Reads the whole document, then writes it: ADF → Markdown when the two-thread path cannot (every other
/// conversion is `streamed`). `None` when that failed (the error is printed).
fn whole(input: cli_input::Input, args: &Args, name: &str) -> Option<std::io::Result<()>> {
    let read = match mcp_text::read(&input, args.from) {
        Ok(read) => read,
        Err(e) => {
            eprintln!("mcp-text: {name}: {e}");
            return None;
        }
    };
    drop(input);
    let read = mcp_text::prepare(read, args.from, args.to);
    warn(name, &read.warnings);
    // The process ends right after writing: the document, the output and the buffer are never freed
    // (freeing a document node by node, and glibc consolidating its free lists when the output goes, cost
    // a third of a conversion's time).
    let read = std::mem::ManuallyDrop::new(read);
    let options = Options {
        plain: args.plain,
        ..Options::default()
    };
    match mcp_text::write_prepared(&read.doc, args.from, args.to, &options) {
        Ok(text) => Some(write_text(text)),
        Err(e) => {
            eprintln!("mcp-text: {name}: {e}");
            None
        }
    }
}

/// Any conversion but large ADF to Markdown, written as it is read (`mcp_text::convert_to`): memory holds
/// the output and what is open, not the document. Markdown and storage format are written once the input
/// has all read, and Markdown and HTML input always read (once they are UTF-8, which is checked first), so
/// those go straight to stdout; ADF from storage format or ADF is gathered first, so that an error late in
/// the input leaves stdout empty.
fn streamed(input: &[u8], args: &Args, name: &str) -> Option<std::io::Result<()>> {
    let options = Options {
        plain: args.plain,
        pretty: args.pretty,
        ..Options::default()
    };
    let always_reads = matches!(args.from, Format::Markdown | Format::Html);
    let ended = if always_reads || args.to != Format::Adf {
        let stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        mcp_text::convert_to(input, args.from, args.to, &options, stdout)
            .map(|(mut stdout, warnings)| (end(&mut stdout, args), warnings))
    } else {
        mcp_text::convert_to(input, args.from, args.to, &options, Vec::new()).map(
            |(mut text, warnings)| {
                let ended = end(&mut text, args);
                (ended.and_then(|()| write_parts(vec![text])), warnings)
            },
        )
    };
    match ended {
        Ok((written, warnings)) => {
            warn(name, &warnings);
            Some(written)
        }
        Err(mcp_text::Failed::Input(e)) => {
            eprintln!("mcp-text: {name}: {e}");
            None
        }
        Err(mcp_text::Failed::Output(e)) => Some(Err(e)),
    }
}

/// ADF ends with a line break, as the other formats do.
fn end(out: &mut impl std::io::Write, args: &Args) -> std::io::Result<()> {
    if args.to == Format::Adf {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// The whole text at once, unbuffered (a buffer would only be one more copy, and freeing it one more
/// consolidation of glibc's free lists); the text is never freed.
fn write_text(text: String) -> std::io::Result<()> {
    write_parts(vec![text])
}

/// Texts written one after the other, as [`write_text`] writes one.
fn write_parts<T: AsRef<[u8]>>(parts: Vec<T>) -> std::io::Result<()> {
    let parts = std::mem::ManuallyDrop::new(parts);
    let mut stdout = std::io::stdout().lock();
    parts
        .iter()
        .try_for_each(|text| stdout.write_all(text.as_ref()))
        .and_then(|()| stdout.flush())
}

fn warn(name: &str, warnings: &[mcp_text::Warning]) {
    for warning in warnings {
        eprintln!("mcp-text: {name}: warning: {warning}");
    }
}
