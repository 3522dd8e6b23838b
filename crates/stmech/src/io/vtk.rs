//! ParaView output of beam shapes: one ASCII `.vtu` (VTK UnstructuredGrid) per snapshot with the
//! beam axis as a polyline (`VTK_POLY_LINE`, cell type 4) through the nodes, point data `theta`
//! (rad) and `s` (m), cell data `N`, `Q`, `M` per element (N, N, N·m); and a `.pvd` collection
//! listing the snapshots with their times. Every file is written to `<name>.tmp` and renamed,
//! so a reader never sees a half-written file.

use crate::io::output::{OutputError, io_err};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One beam snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct BeamSnapshot {
    /// Time (s) or load factor.
    pub t: f64,
    /// Node positions `(r1, r2)` (m).
    pub positions: Vec<[f64; 2]>,
    /// Node rotations `θ` (rad).
    pub theta: Vec<f64>,
    /// Node arc lengths `s` (m).
    pub s: Vec<f64>,
    /// Section forces per element `[N, Q, M]` (N, N, N·m).
    pub resultants: Vec<[f64; 3]>,
}

/// Writes `text` to `path` atomically (temp file in the same directory, then rename). An
/// error names the file ([`OutputError::Io`]); the temporary file is removed.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), OutputError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let written = std::fs::write(&tmp, text)
        .map_err(io_err("write", path))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(io_err("write", path)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The `.vtu` text of a snapshot.
pub fn vtu_string(snap: &BeamSnapshot) -> String {
    let n = snap.positions.len();
    let ne = snap.resultants.len();
    let mut o = String::new();
    let _ = writeln!(o, "<?xml version=\"1.0\"?>");
    let _ = writeln!(
        o,
        "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">"
    );
    let _ = writeln!(o, "<UnstructuredGrid>");
    let _ = writeln!(o, "<Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{ne}\">");
    let _ = writeln!(
        o,
        "<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">"
    );
    for p in &snap.positions {
        let _ = writeln!(o, "{:.12e} {:.12e} 0", p[0], p[1]);
    }
    let _ = writeln!(o, "</DataArray></Points>");
    // One poly-line cell per element (its end nodes and the interior ones in order): cell data
    // then map to elements. Nodes per element = (n − 1)/ne + 1.
    let per = (n.saturating_sub(1)).checked_div(ne).unwrap_or(0);
    let _ = writeln!(
        o,
        "<Cells><DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">"
    );
    for e in 0..ne {
        let ids: Vec<String> = (e * per..=(e + 1) * per).map(|i| i.to_string()).collect();
        let _ = writeln!(o, "{}", ids.join(" "));
    }
    let _ = writeln!(
        o,
        "</DataArray><DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">"
    );
    for e in 0..ne {
        let _ = write!(o, "{} ", (e + 1) * (per + 1));
    }
    let _ = writeln!(
        o,
        "\n</DataArray><DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">"
    );
    for _ in 0..ne {
        let _ = write!(o, "4 ");
    }
    let _ = writeln!(o, "\n</DataArray></Cells>");
    let _ = writeln!(o, "<PointData Scalars=\"theta\">");
    for (name, vals) in [("theta", &snap.theta), ("s", &snap.s)] {
        let _ = writeln!(
            o,
            "<DataArray type=\"Float64\" Name=\"{name}\" format=\"ascii\">"
        );
        for v in vals {
            let _ = write!(o, "{v:.12e} ");
        }
        let _ = writeln!(o, "\n</DataArray>");
    }
    let _ = writeln!(o, "</PointData>");
    let _ = writeln!(o, "<CellData>");
    for (k, name) in ["N", "Q", "M"].iter().enumerate() {
        let _ = writeln!(
            o,
            "<DataArray type=\"Float64\" Name=\"{name}\" format=\"ascii\">"
        );
        for r in &snap.resultants {
            let _ = write!(o, "{:.12e} ", r[k]);
        }
        let _ = writeln!(o, "\n</DataArray>");
    }
    let _ = writeln!(o, "</CellData>");
    let _ = writeln!(o, "</Piece>\n</UnstructuredGrid>\n</VTKFile>");
    o
}

/// The `.pvd` text listing `(time, file name)` pairs.
pub fn pvd_string(entries: &[(f64, String)]) -> String {
    let mut o = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n<Collection>\n",
    );
    for (t, f) in entries {
        let _ = writeln!(
            o,
            "<DataSet timestep=\"{t:.12e}\" group=\"\" part=\"0\" file=\"{f}\"/>"
        );
    }
    o.push_str("</Collection>\n</VTKFile>\n");
    o
}

/// Writes `<stem>_NNNN.vtu` for every snapshot and `<stem>.pvd` into `dir`; returns the `.pvd`
/// path.
pub fn write_series(
    dir: &Path,
    stem: &str,
    snaps: &[BeamSnapshot],
) -> Result<PathBuf, OutputError> {
    let mut entries = Vec::with_capacity(snaps.len());
    for (k, snap) in snaps.iter().enumerate() {
        let name = format!("{stem}_{k:04}.vtu");
        write_atomic(&dir.join(&name), &vtu_string(snap))?;
        entries.push((snap.t, name));
    }
    let pvd = dir.join(format!("{stem}.pvd"));
    write_atomic(&pvd, &pvd_string(&entries))?;
    Ok(pvd)
}

/// One snapshot of a 3D scene: every rigid body as a hexahedron (its equivalent inertia box)
/// and every spatial beam as poly-lines (one per element) through its nodes, in one
/// UnstructuredGrid. Point data: the directors `d1`, `d2`, `d3` at every point (ParaView's
/// Glyph filter draws the frames) and the arc length `s` (0 on bodies); cell data: `part`, the
/// index of the body or beam (bodies first) for colouring and thresholds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SceneSnapshot {
    /// Time (s) or load factor.
    pub t: f64,
    /// Point coordinates (m).
    pub points: Vec<[f64; 3]>,
    /// Directors at every point.
    pub directors: Vec<[[f64; 3]; 3]>,
    /// Arc length at every point (m; 0 on bodies).
    pub s: Vec<f64>,
    /// Cells: VTK cell type (4 poly-line, 12 hexahedron) and point indices.
    pub cells: Vec<(u8, Vec<usize>)>,
    /// Part index of every cell.
    pub part: Vec<u32>,
}

/// The `.vtu` text of a scene snapshot.
pub fn scene_vtu_string(snap: &SceneSnapshot) -> String {
    let (n, nc) = (snap.points.len(), snap.cells.len());
    let mut o = String::new();
    let _ = writeln!(o, "<?xml version=\"1.0\"?>");
    let _ = writeln!(
        o,
        "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">"
    );
    let _ = writeln!(o, "<UnstructuredGrid>");
    let _ = writeln!(o, "<Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{nc}\">");
    let _ = writeln!(
        o,
        "<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">"
    );
    for p in &snap.points {
        let _ = writeln!(o, "{:.12e} {:.12e} {:.12e}", p[0], p[1], p[2]);
    }
    let _ = writeln!(o, "</DataArray></Points>");
    let _ = writeln!(
        o,
        "<Cells><DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">"
    );
    for (_, ids) in &snap.cells {
        let ids: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
        let _ = writeln!(o, "{}", ids.join(" "));
    }
    let _ = writeln!(
        o,
        "</DataArray><DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">"
    );
    let mut off = 0;
    for (_, ids) in &snap.cells {
        off += ids.len();
        let _ = write!(o, "{off} ");
    }
    let _ = writeln!(
        o,
        "\n</DataArray><DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">"
    );
    for (ty, _) in &snap.cells {
        let _ = write!(o, "{ty} ");
    }
    let _ = writeln!(o, "\n</DataArray></Cells>");
    let _ = writeln!(o, "<PointData Vectors=\"d3\">");
    for i in 0..3 {
        let _ = writeln!(
            o,
            "<DataArray type=\"Float64\" Name=\"d{}\" NumberOfComponents=\"3\" format=\"ascii\">",
            i + 1
        );
        for d in &snap.directors {
            let _ = writeln!(o, "{:.9e} {:.9e} {:.9e}", d[i][0], d[i][1], d[i][2]);
        }
        let _ = writeln!(o, "</DataArray>");
    }
    let _ = writeln!(
        o,
        "<DataArray type=\"Float64\" Name=\"s\" format=\"ascii\">"
    );
    for v in &snap.s {
        let _ = write!(o, "{v:.12e} ");
    }
    let _ = writeln!(o, "\n</DataArray>\n</PointData>");
    let _ = writeln!(o, "<CellData Scalars=\"part\">");
    let _ = writeln!(
        o,
        "<DataArray type=\"UInt32\" Name=\"part\" format=\"ascii\">"
    );
    for p in &snap.part {
        let _ = write!(o, "{p} ");
    }
    let _ = writeln!(o, "\n</DataArray>\n</CellData>");
    let _ = writeln!(o, "</Piece>\n</UnstructuredGrid>\n</VTKFile>");
    o
}

/// Writes `<stem>_NNNN.vtu` for every scene snapshot and `<stem>.pvd` into `dir`; returns the
/// file names written (the `.pvd` last).
pub fn write_scene_series(
    dir: &Path,
    stem: &str,
    snaps: &[SceneSnapshot],
) -> Result<Vec<String>, OutputError> {
    let mut entries = Vec::with_capacity(snaps.len());
    let mut files = Vec::with_capacity(snaps.len() + 1);
    for (k, snap) in snaps.iter().enumerate() {
        let name = format!("{stem}_{k:04}.vtu");
        write_atomic(&dir.join(&name), &scene_vtu_string(snap))?;
        entries.push((snap.t, name.clone()));
        files.push(name);
    }
    let pvd = format!("{stem}.pvd");
    write_atomic(&dir.join(&pvd), &pvd_string(&entries))?;
    files.push(pvd);
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_is_well_formed() {
        let snap = BeamSnapshot {
            t: 0.5,
            positions: vec![[0.0, 0.0], [0.5, 0.0], [1.0, 0.1]],
            theta: vec![0.0, 0.1, 0.2],
            s: vec![0.0, 0.5, 1.0],
            resultants: vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
        };
        let v = vtu_string(&snap);
        assert!(v.contains("NumberOfPoints=\"3\" NumberOfCells=\"2\""));
        assert!(v.contains("0 1\n1 2\n"));
        assert!(v.contains("Name=\"M\""));
        let dir = std::env::temp_dir().join(format!("stmech-vtk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pvd = write_series(&dir, "beam", &[snap.clone(), snap]).unwrap();
        let text = std::fs::read_to_string(pvd).unwrap();
        assert_eq!(text.matches("<DataSet").count(), 2);
        assert!(dir.join("beam_0001.vtu").exists());
        assert!(!dir.join("beam_0001.vtu.tmp").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
