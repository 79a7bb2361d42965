{
  description = "Libations: a private cocktail-recipe web app that lives on your tailnet";

  # libtailscale 0.2.2 needs Go >= 1.25.5 (nixos/libtailscale.nix checks this).
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs =
    { self, nixpkgs }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
      # The commit time, for the embedded sample's "updated" date (build.rs).
      sourceDateEpoch = self.lastModified or null;
    in
    {
      overlays.default = final: _prev: {
        libations = final.callPackage ./nixos/package.nix { inherit sourceDateEpoch; };
      };

      packages = forAllSystems (pkgs: {
        libations = pkgs.callPackage ./nixos/package.nix { inherit sourceDateEpoch; };
        default = self.packages.${pkgs.stdenv.hostPlatform.system}.libations;
      });

      nixosModules.libations =
        { lib, pkgs, ... }:
        {
          imports = [ ./nixos/module.nix ];
          services.libations.package =
            lib.mkDefault
              self.packages.${pkgs.stdenv.hostPlatform.system}.libations
                or (pkgs.callPackage ./nixos/package.nix { inherit sourceDateEpoch; });
        };
      nixosModules.default = self.nixosModules.libations;

      devShells = forAllSystems (pkgs: {
        # What scripts/test and .ci/run need: Rust (with clippy and rustfmt), Go for the
        # libtailscale build script and the tailnet test harness, Node for the JavaScript
        # tests, Chromium for page screenshots, pebble as the test ACME server.
        default = pkgs.mkShell {
          packages = with pkgs; [
            cargo
            rustc
            clippy
            rustfmt
            go
            nodejs
            chromium
            pebble
            nix # nix-instantiate for scripts/nix-check
          ];
          RUST_SRC_PATH = "${pkgs.rustPlatform.rustLibSrc}";
          # The browser tests look for Debian's paths; here one chromium does both jobs.
          CHROME_PATH = "${pkgs.chromium}/bin/chromium";
          FULL_CHROME_PATH = "${pkgs.chromium}/bin/chromium";
        };
      });

      formatter = forAllSystems (pkgs: pkgs.nixfmt-tree);
    };
}
