//! The fixtures of the skills extension's scenarios (SEP-2640: `sep-2640-skills-directory`,
//! `-enumeration` and `-manifest`). The suite finds skills by listing them, so any well-formed skill
//! serves; these two cover what it looks for: a `SKILL.md` whose front matter names the skill, a
//! subdirectory (for `resources/directory/read`), supporting files of several kinds, and a skill below
//! a path (`skill://acme/release-notes/SKILL.md`).

use mcp_runtime::server::Skill;

const PDF_PROCESSING: &str = "---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
license: Apache-2.0
metadata:
  author: mcp-runtime
  version: \"1.0\"
---

# PDF processing

1. To fill a form, read `references/FORMS.md` for the field names.
2. Run `scripts/fill_form.py FORM.pdf VALUES.json` to fill it.
";

const FORMS: &str = "# Form fields

| field | meaning |
|---|---|
| `name` | the applicant's full name |
| `date` | the date of signature, YYYY-MM-DD |
";

const FILL_FORM: &str = "import json, sys

form, values = sys.argv[1], json.load(open(sys.argv[2]))
print(f\"filling {form} with {sorted(values)}\")
";

const RELEASE_NOTES: &str = "---
name: release-notes
description: Write release notes from a changelog and the merged pull requests
---

Start from `template.md`; group the changes as it does.
";

const TEMPLATE: &str = "## Added\n\n## Changed\n\n## Fixed\n";

pub(crate) fn skills() -> Vec<Skill> {
    vec![
        Skill::new(PDF_PROCESSING)
            .file("references/FORMS.md", FORMS)
            .file("scripts/fill_form.py", FILL_FORM),
        Skill::new(RELEASE_NOTES)
            .under("acme")
            .file("template.md", TEMPLATE),
    ]
}
