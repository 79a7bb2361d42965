# The libations binary. Built with the `tailnet` feature (the default), linking the
# libtailscale archive from ./libtailscale.nix instead of letting libtailscale-sys's build
# script run `go build` (which needs the network).
{
  lib,
  stdenv,
  rustPlatform,
  callPackage,
  libtailscale ? callPackage ./libtailscale.nix { },
  # Seconds since the epoch for the sample's "updated" date (build.rs reads
  # SOURCE_DATE_EPOCH). The flake passes the commit time; null keeps stdenv's default.
  sourceDateEpoch ? null,
}:

let
  cargoToml = builtins.fromTOML (builtins.readFile ../Cargo.toml);
  cargoLock = builtins.fromTOML (builtins.readFile ../Cargo.lock);
  lockedSys = builtins.filter (p: p.name == "libtailscale-sys") (cargoLock.package or [ ]);
  rustTarget = stdenv.hostPlatform.rust.rustcTarget;
  tomlList = xs: "[" + lib.concatMapStringsSep ", " (x: ''"${x}"'') xs + "]";
in
assert lib.assertMsg (lib.all (p: p.version == libtailscale.version) lockedSys)
  "Cargo.lock pins libtailscale-sys ${
    lib.concatMapStringsSep ", " (p: p.version) lockedSys
  } but nixos/libtailscale.nix builds ${libtailscale.version}: update its version and hashes.";

rustPlatform.buildRustPackage {
  pname = cargoToml.package.name;
  version = cargoToml.workspace.package.version;

  src = lib.fileset.toSource {
    root = ../.;
    fileset = lib.fileset.unions [
      ../Cargo.toml
      ../Cargo.lock
      ../build.rs
      ../src
      ../crates
      ../data
      ../recipes
      ../static
      ../templates
      ../tests # crates/model's search and the web crate's links include_str! tests/*.json
    ];
  };

  cargoLock.lockFile = ../Cargo.lock;

  # libtailscale-sys declares `links = "tailscale"`, so a `[target.<triple>.tailscale]`
  # table replaces its build script: cargo neither compiles nor runs it and passes these
  # values to rustc as if the script had printed them. The script itself prints only
  # rustc-link-search and rustc-link-lib=static=tailscale (plus macOS frameworks, not
  # relevant here); resolv and pthread are the cgo LDFLAGS a c-archive leaves to its user.
  # Written next to the sources (the cargo setup hook's vendoring config lives one level
  # up, in the build directory; cargo merges both).
  postPatch = ''
    mkdir -p .cargo
    # If a `config` without .toml exists here, cargo reads only that one.
    cargoConfig=.cargo/config.toml
    if [ -e .cargo/config ]; then cargoConfig=.cargo/config; fi
    cat >> "$cargoConfig" <<'EOF'

    [target."${rustTarget}".tailscale]
    rustc-link-search = ${tomlList [ "native=${libtailscale}/lib" ]}
    rustc-link-lib = ${tomlList libtailscale.passthru.linkLibs}
    EOF
  '';

  env = lib.optionalAttrs (sourceDateEpoch != null) {
    SOURCE_DATE_EPOCH = toString sourceDateEpoch;
  };

  # Unit tests only: tests/ starts real servers (and the tailnet tests need Go, pebble and
  # a test control server), which the repo's own test command covers.
  cargoTestFlags = [
    "--workspace"
    "--lib"
    "--bins"
  ];

  passthru = {
    inherit libtailscale;
  };

  meta = {
    description = cargoToml.package.description;
    license = lib.licenses.mit;
    mainProgram = "libations";
    platforms = [
      "x86_64-linux"
      "aarch64-linux"
    ];
  };
}
