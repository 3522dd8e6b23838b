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
