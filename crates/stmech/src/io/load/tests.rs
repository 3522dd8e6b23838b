use super::*;

const RIGID: &str = r#"[time]
end = 1.0
[method]
kind = "space-time"
elements_per_block = 4
[[bodies]]
name = "box"
box = { edges = [2.0, 1.0, 1.0], density = 1.5 }
"#;

/// `(line, field)` of every problem, in report order.
fn report(text: &str) -> Vec<(Option<usize>, String)> {
    match load_text(text, "t.toml", Path::new(".")) {
        Ok(_) => Vec::new(),
        Err(ScenarioError::Located {
            problems, lines, ..
        }) => lines
            .into_iter()
            .zip(problems)
            .map(|(l, p)| match p {
                InputError::Invalid { field, .. } => (l, field),
                other => (l, other.to_string()),
            })
            .collect(),
        Err(e) => panic!("expected located problems, got {e}"),
    }
}

fn line_field(line: usize, field: &str) -> (Option<usize>, String) {
    (Some(line), field.to_owned())
}

#[test]
fn valid_files_of_every_type_load() {
    assert!(matches!(
        load_text(RIGID, "t", Path::new(".")),
        Ok(AnyScenario::Multibody(_))
    ));
    let beam = "problem = \"beam\"\nanalysis = \"static\"\n[beam]\nlength = 1.0\nelements = 2\n\
                section = { rho_a = 1.0, rho_i = 1.0, ea = 1.0, ga = 1.0, ei = 1.0 }\n";
    assert!(matches!(
        load_text(beam, "t", Path::new(".")),
        Ok(AnyScenario::Beam(_))
    ));
}

/// Structural errors do not hide each other or the invalid values: one report has them
/// all, in file order, each with its line.
#[test]
fn structural_and_value_problems_are_reported_together() {
    let text = RIGID
        .replace("end = 1.0", "end = -1.0")
        .replace(
            "elements_per_block = 4",
            "elements_per_block = 4\nblocks = \"two\"",
        )
        .replace("density = 1.5", "density = -1.5, colour = 3")
        + "[[loads]]\nbody = \"box\"\nkind = \"torque\"\nvector = [1.0, 1.0]\nbogus = true\n";
    assert_eq!(
        report(&text),
        vec![
            line_field(2, "time.end"),
            line_field(6, "method.blocks"),
            line_field(9, "bodies[0].box.colour"),
            line_field(9, "bodies[0].box.density"),
            line_field(13, "loads[0].vector"),
            line_field(14, "loads[0].bogus"),
        ]
    );
}

#[test]
fn syntax_errors_on_several_lines_are_all_reported() {
    let text = RIGID
        .replace("end = 1.0", "end = = 1.0")
        .replace("name = \"box\"", "name = box");
    let r = report(&text);
    assert_eq!(r.len(), 2, "{r:?}");
    assert_eq!(r[0], line_field(2, "time.end"));
    assert_eq!(r[1], line_field(7, "bodies[0].name"));
}

/// The path of a syntax error is read off the text: the header above and the key.
#[test]
fn syntax_error_paths_skip_multi_line_arrays() {
    let text = RIGID.replace(
        "box = { edges = [2.0, 1.0, 1.0], density = 1.5 }",
        "mass = 1.0\neuler_tensor = [\n  [1.0, 0.0, 0.0],\n  [0.0, 1.0, 0.0],\n  \
         [0.0, 0.0, 1.0]\n]\nposition = [0.0, 0.0 0.0]",
    );
    assert_eq!(report(&text), vec![line_field(14, "bodies[0].position")]);
}

/// A missing required field gets a placeholder so the rest is still checked; a missing or
/// misspelt `kind` does not make its siblings look wrong.
#[test]
fn missing_fields_do_not_stop_the_report() {
    let text = RIGID
        .replace("end = 1.0\n", "")
        .replace("name = \"box\"", "name = \"box\"\nmass = -1.0");
    let r = report(&text);
    assert!(r.contains(&line_field(1, "time.end")), "{r:?}");
    assert!(r.iter().any(|(_, f)| f == "bodies[0].box"), "{r:?}");
    let text = RIGID.replace("\"space-time\"", "\"spacetime\"");
    assert_eq!(report(&text), vec![line_field(4, "method.kind")]);
    let text = RIGID.replace("[time]\nend = 1.0\n", "");
    assert_eq!(report(&text), vec![(None, "time".to_owned())]);
}

#[test]
fn unknown_problem_type_names_the_choices() {
    let text = format!("problem = \"beams\"\n{RIGID}");
    let err = load_text(&text, "t.toml", Path::new(".")).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("line 1: problem") && msg.contains("\"beam-inverse\""),
        "{msg}"
    );
}

#[test]
fn paths_round_trip() {
    for p in ["time.end", "bodies[0].box.edges[2]", "a[1][2].b", "mesh"] {
        assert_eq!(render(&parse_path(p)), p);
    }
}

/// The time domain of an inverse problem must hold the pre- and post-actuation (L/c = 1 s
/// here); the message gives the value that fixes it.
#[test]
fn inverse_time_domain_needs_room_for_the_actuation() {
    let text = "problem = \"beam-inverse\"\n[beam]\nlength = 1.0\nlaw = \"log\"\n\
                section = { rho_a = 1.0, rho_i = 1.0, ea = 1.0, ga = 1.0, ei = 1.0 }\n\
                [trajectory]\nkind = \"rest-to-rest\"\nangle = 1.0\nt0 = 2.0\nduration = 2.0\n\
                [time]\nstart = 0.0\nend = 6.0\n[mesh]\nresolution = 4\n";
    assert!(load_text(text, "t", Path::new(".")).is_ok());
    let late = text.replace("start = 0.0", "start = 1.5");
    let err = load_text(&late, "t", Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("time.start") && err.contains("time.start ≤ 1.0000 s"),
        "{err}"
    );
    let short = text.replace("end = 6.0", "end = 4.5");
    let err = load_text(&short, "t", Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("time.end") && err.contains("time.end ≥ 5.0000 s"),
        "{err}"
    );
}

/// The message of the problem of `field`.
fn message_of(text: &str, field: &str) -> String {
    match load_text(text, "t.toml", Path::new(".")) {
        Err(ScenarioError::Located { problems, .. }) => problems
            .iter()
            .find_map(|p| match p {
                InputError::Invalid { field: f, message } if f == field => Some(message.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no problem of {field} in {problems:?}")),
        other => panic!("expected located problems, got {other:?}"),
    }
}

/// Issue 13: every missing table is reported, not just the first.
#[test]
fn every_missing_table_is_reported() {
    let only_bodies =
        "[[bodies]]\nname = \"box\"\nbox = { edges = [2.0, 1.0, 1.0], density = 1.5 }\n";
    assert_eq!(
        report(only_bodies),
        vec![(None, "time".to_owned()), (None, "method".to_owned())]
    );
    let r = report("problem = \"beam-inverse\"\n");
    for table in ["beam", "trajectory", "time", "mesh"] {
        assert!(
            r.contains(&(None, table.to_owned())),
            "{table} missing in {r:?}"
        );
    }
    let r = report("problem = \"beam\"\n");
    assert!(r.contains(&(None, "beam".to_owned())), "{r:?}");
    // a missing table does not hide a wrong value elsewhere
    let text = only_bodies.replace("density = 1.5", "density = -1.5");
    let r = report(&text);
    assert!(r.contains(&line_field(3, "bodies[0].box.density")), "{r:?}");
    assert!(r.contains(&(None, "method".to_owned())), "{r:?}");
}

/// Issue 13: a number too large for its type is named with its field and line, and does not
/// hide the other problems.
#[test]
fn overflowing_numbers_name_their_field_and_hide_nothing() {
    let text = RIGID
        .replace(
            "elements_per_block = 4",
            "elements_per_block = 99999999999999999999",
        )
        .replace("density = 1.5", "density = 1e400")
        .replace("end = 1.0", "end = -1.0")
        + "[[loads]]\nbody = \"box\"\nkind = \"torque\"\nvector = [1.0, -99999999999999999999, 0x7fffffffffffffffff]\n";
    assert_eq!(
        report(&text),
        vec![
            line_field(2, "time.end"),
            line_field(5, "method.elements_per_block"),
            line_field(8, "bodies[0].box.density"),
            line_field(12, "loads[0].vector[1]"),
            line_field(12, "loads[0].vector[2]"),
        ]
    );
    let m = message_of(&text, "method.elements_per_block");
    assert!(
        m.contains("99999999999999999999") && m.contains("64 bits"),
        "{m}"
    );
    let m = message_of(&text, "bodies[0].box.density");
    assert!(m.contains("1e400") && m.contains("64-bit float"), "{m}");
    // a count written as a float names what a count looks like
    let m = message_of(&RIGID.replace("= 4", "= 1e30"), "method.elements_per_block");
    assert!(m.contains("whole number") && m.contains("1e3"), "{m}");
    // a 10⁶-digit integer is quoted as an excerpt
    let huge = RIGID.replace("= 4", &format!("= {}", "9".repeat(1_000_000)));
    let m = message_of(&huge, "method.elements_per_block");
    assert!(m.len() < 400 && m.contains("truncated"), "{m}");
}

/// Issue 13: a 10 MB value is echoed back only as a truncated excerpt.
#[test]
fn long_input_is_quoted_as_a_truncated_excerpt() {
    let long = "a".repeat(10_000_000);
    let text = RIGID.replace("name = \"box\"", &format!("name = \"{long},\""))
        + &format!("[[loads]]\nbody = \"{long}\"\nkind = \"{long}\"\nvector = [1, 1, 1]\n");
    let err = load_text(&text, "t.toml", Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(err.len() < 2_000, "{} bytes", err.len());
    assert!(err.contains("truncated: 10000001 characters"), "{err}");
    // a long unknown key
    let text = RIGID.replace("[method]", &format!("[method]\n{long} = 1"));
    let err = load_text(&text, "t.toml", Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(
        err.len() < 2_000 && err.contains("truncated"),
        "{} bytes",
        err.len()
    );
}

/// Issue 13: a table header given twice is reported as such, at its own line; the keys under
/// it are not reported again; a key given twice names its first line.
#[test]
fn duplicated_tables_and_keys_are_reported_at_their_own_line() {
    let text = format!("{RIGID}[time]\nstart = 0.0\nend = 1.0\n");
    let r = report(&text);
    assert_eq!(r, vec![line_field(9, "time")]);
    let m = message_of(&text, "time");
    assert!(
        m.contains("defined twice") && m.contains("line 1") && m.contains("merge"),
        "{m}"
    );
    // [bodies] after [[bodies]]
    let m = message_of(&format!("{RIGID}[bodies]\nx = 1\n"), "bodies");
    assert!(m.contains("[[bodies]]") && m.contains("line 6"), "{m}");
    // a key twice
    let text = RIGID.replace("end = 1.0", "end = 1.0\nend = 2.0");
    assert_eq!(report(&text), vec![line_field(3, "time.end")]);
    let m = message_of(&text, "time.end");
    assert!(m.contains("twice") && m.contains("first at line 2"), "{m}");
}

/// Issue 13: deep dotted keys are reported at their own line, whether unknown, wrongly typed
/// or invalid, at the top level or inside a table.
#[test]
fn deep_dotted_keys_are_reported_at_their_own_line() {
    let text = format!("a.b.c.d = 1\n{RIGID}");
    assert_eq!(report(&text), vec![line_field(1, "a")]);
    let text = RIGID.replace(
        "box = { edges = [2.0, 1.0, 1.0], density = 1.5 }",
        "box.edges = [2.0, 1.0, 1.0]\n\nbox.density = -1.5\nbox.extra.deep.er = 1",
    );
    assert_eq!(
        report(&text),
        vec![
            line_field(10, "bodies[0].box.density"),
            line_field(11, "bodies[0].box.extra"),
        ]
    );
    let text = "time.start = 0.0\n\ntime.end = \"x\"\nmethod.kind = \"space-time\"\n\
                method.elements_per_block.a.b = 4\n[[bodies]]\nname = \"box\"\n\
                box = { edges = [2.0, 1.0, 1.0], density = 1.5 }\n";
    assert_eq!(
        report(text),
        vec![
            line_field(3, "time.end"),
            line_field(5, "method.elements_per_block"),
        ]
    );
}

/// A file that is not TOML at all (a CSV given as the scenario) lists the first problems and
/// counts the rest.
#[test]
fn a_report_lists_at_most_fifty_problems() {
    let csv: String = (0..1000).map(|k| format!("{k},1,0,0\n")).collect();
    let err = load_text(&csv, "t.csv", Path::new(".")).unwrap_err();
    assert_eq!(err.problems().len(), 1000);
    let msg = err.to_string();
    assert_eq!(msg.lines().count(), 1 + 50 + 1, "{msg}");
    assert!(
        msg.ends_with(
            "… and 950 more problems (fix the ones above first; is this a scenario file?)"
        ),
        "{msg}"
    );
}
