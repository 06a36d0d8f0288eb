//! How a grid names its files (columns) and levels: `a` ... `z`, `aa` ..., Go's columns
//! without `i`, and `A` ... for levels and board columns.

/// How a planar grid names its files (columns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Naming {
    /// `a` ... `z`, `aa`, `ab`, ... (as spreadsheet columns).
    #[default]
    Letters,
    /// As Go players do: `a` ... `z` without `i`, so at most 25 files.
    Go,
}

/// The letters of Go's columns: `i` is left out (it looks too much like `j` and `1`).
const GO_FILES: &[u8; 25] = b"abcdefghjklmnopqrstuvwxyz";

impl Naming {
    /// The naming called `name` in a `#board ... named <name>`.
    pub fn from_name(name: &str) -> Option<Naming> {
        match name {
            "go" => Some(Naming::Go),
            _ => None,
        }
    }

    /// The most files a grid so named may have.
    pub fn max_files(self) -> Option<u32> {
        match self {
            Naming::Letters => None,
            Naming::Go => Some(GO_FILES.len() as u32),
        }
    }

    /// The name of file `i` (from 0), which must be below [`Naming::max_files`].
    pub fn file_label(self, i: u32) -> String {
        match self {
            Naming::Letters => file_label(i),
            Naming::Go => GO_FILES
                .get(i as usize)
                .map_or_else(|| file_label(i), |&b| char::from(b).to_string()),
        }
    }
}

/// The name of file `i` (from 0): `a` ... `z`, `aa` ... `az`, `ba` ...
pub fn file_label(i: u32) -> String {
    label(i, b'a')
}

/// The name of level (3D) or board column (4D) `i`: `A` ... `Z`, `AA` ...
pub fn level_label(i: u32) -> String {
    label(i, b'A')
}

fn label(i: u32, first: u8) -> String {
    let mut n = u64::from(i) + 1;
    let mut letters = Vec::new();
    while n > 0 {
        let r = ((n - 1) % 26) as u8;
        letters.push(first + r);
        n = (n - 1) / 26;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap_or_default()
}

/// The index of a file name made of lower-case letters (`a` is 0, `aa` is 26).
pub fn file_index(name: &str) -> Option<u32> {
    if name.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for b in name.bytes() {
        if !b.is_ascii_lowercase() {
            return None;
        }
        n = n.checked_mul(26)?.checked_add(u64::from(b - b'a') + 1)?;
    }
    u32::try_from(n - 1).ok()
}
