# NixOS module: services.libations runs the recipe viewer as its own node on a tailnet.
# Secrets (the Tailscale auth key, a private recipes file) are read by systemd from root-only
# files with LoadCredential=, so they never enter the Nix store and the service's dynamic
# user never needs read access to the original files.
{
  config,
  lib,
  pkgs,
  utils,
  ...
}:

let
  cfg = config.services.libations;
  inherit (lib) mkOption types;

  isOutsideStore = p: lib.hasPrefix "/" p && !lib.hasPrefix "${builtins.storeDir}/" p;

  # toString of a path literal is its path, without copying the file into the store (as
  # "${./key}" would): a configuration written for the Go original's module, whose option
  # was a path, keeps working and the key stays out of the store.
  keyFile = if cfg.tailscaleKeyFile == null then null else toString cfg.tailscaleKeyFile;
  # The port of metrics.address, or null when it is not IP:PORT ("127.0.0.1:9090",
  # "[::]:9090"): the binary takes an IP address, not a host name.
  metricsPort =
    let
      ip = "(([0-9]{1,3}[.]){3}[0-9]{1,3}|[[][0-9a-fA-F:.]+[]])";
      m = if cfg.metrics.address == null then null else builtins.match "${ip}:([0-9]{1,5})" cfg.metrics.address;
    in
    if m == null then null else lib.toInt (builtins.elemAt m 2);

  recipesArg = if cfg.recipesFileIsSecret then "recipes.json" else toString cfg.recipesFile;

  # Credential names are fixed: the binary resolves relative --auth-key-file and
  # --recipes-file names against $CREDENTIALS_DIRECTORY.
  args =
    [
      "--hostname"
      cfg.hostname
      "--log-format"
      "json"
    ]
    ++ lib.optionals (keyFile != null) [
      "--auth-key-file"
      "auth-key"
    ]
    ++ lib.optionals (cfg.recipesFile != null && !cfg.editing.enable) [
      "--recipes-file"
      recipesArg
    ]
    # With editing, the collection lives in the state directory (--recipes-file is
    # written into ExecStart below, since %S must stay unescaped); recipesFile, or the
    # sample, only seeds it on the first start.
    ++ lib.optionals cfg.editing.enable [ "--allow-edits" ]
    ++ lib.optionals (cfg.editing.enable && cfg.recipesFile != null) [
      "--seed-recipes-file"
      recipesArg
    ]
    ++ lib.concatMap (login: [
      "--editor"
      login
    ]) cfg.editing.editors
    ++ lib.optionals cfg.guestMenu.funnel.enable [ "--guest-menu-funnel" ]
    ++ lib.optionals (cfg.controlUrl != null) [
      "--control-url"
      cfg.controlUrl
    ]
    ++ lib.optionals (cfg.metrics.address != null) [
      "--metrics-addr"
      cfg.metrics.address
    ]
    ++ cfg.extraArgs;
in
{
  options.services.libations = {
    enable = lib.mkEnableOption "Libations, a private cocktail-recipe web app on your tailnet";

    package = mkOption {
      type = types.package;
      default = pkgs.libations;
      defaultText = lib.literalExpression "pkgs.libations";
      description = ''
        The libations package. The flake's nixosModules set this to the flake's own
        package; with the overlay applied, pkgs.libations works too.
      '';
    };

    recipesFile = mkOption {
      type = types.nullOr types.path;
      default = null;
      example = "/run/agenix/libations-recipes";
      description = ''
        Recipes file (a JSON array of recipes). null serves the sample recipes built into
        the binary. It is handed to the service with systemd's LoadCredential=, so a
        root-only (0400) file such as an agenix secret works. A string path stays where it
        is; a Nix path literal (./bar.json) is copied into the world-readable Nix store,
        fine for recipes you do not mind sharing.
      '';
    };

    recipesFileIsSecret = mkOption {
      type = types.bool;
      default = true;
      description = ''
        true: recipesFile is handed over with LoadCredential=, so a root-only secret works.
        systemd copies a credential when the service starts and keeps that copy unchanged
        while it runs, so a changed secret needs a restart (restartTriggers does it).
        false: the service reads recipesFile where it is (it must be readable by any user,
        e.g. a Nix store path), and a change reloads instead of restarting (reloadTriggers,
        ExecReload sends SIGHUP; libations also notices the file change by itself).
      '';
    };

    tailscaleKeyFile = mkOption {
      type = types.nullOr (types.either types.str types.path);
      default = null;
      example = "/run/agenix/libations-tailscale-key";
      description = ''
        Absolute path of a root-only file holding a Tailscale auth key: either just the
        key, or one line TS_AUTHKEY=<key> as the Go version's EnvironmentFile had. A path
        literal is taken as its path and never copied into the Nix store. Passed with
        LoadCredential=. Only needed until the node has joined: its identity is kept in
        the state directory (/var/lib/libations). null: the log shows a login URL to open
        once.
      '';
    };

    hostname = mkOption {
      type = types.str;
      default = "libations";
      description = "Name of the node on the tailnet: https://<hostname>.<tailnet>.ts.net.";
    };

    controlUrl = mkOption {
      type = types.nullOr types.str;
      default = null;
      example = "https://headscale.example.org";
      description = "Control server URL, for a self-hosted one such as headscale. null: Tailscale's.";
    };

    metrics.address = mkOption {
      type = types.nullOr types.str;
      default = null;
      example = "127.0.0.1:9090";
      description = ''
        IP:PORT of a second listener, on the machine and never on the tailnet, with
        Prometheus metrics (/metrics), health checks (/healthz, /readyz) and CPU profiles
        (/debug/pprof/profile?seconds=N) for Prometheus and Parca. null: no such listener.
        Use an address on an interface only your monitoring can reach, or 127.0.0.1 with a
        scraper on the same machine.
      '';
    };

    metrics.openFirewall = mkOption {
      type = types.bool;
      default = false;
      description = ''
        Open metrics.address's TCP port in the NixOS firewall (on every interface), so a
        scraper on another machine reaches it. To open it on one interface only, leave this
        false and use networking.firewall.interfaces.<name>.allowedTCPPorts.
      '';
    };

    editing.enable = mkOption {
      type = types.bool;
      default = false;
      description = ''
        Let the people the tailnet grants it add, edit and delete recipes from the app.
        The collection then lives in the state directory (/var/lib/libations/recipes.json,
        with its history in recipes.json.journal beside it), seeded once from recipesFile
        (or the built-in sample) on the first start and never overwritten by a later
        deploy. Who may edit: grants of {"edit": true} under the app capability in the
        tailnet policy, or editing.editors. To take the edits back into your configuration,
        download /api/recipes/download and commit it as your recipesFile.
      '';
    };

    editing.editors = mkOption {
      type = types.listOf types.str;
      default = [ ];
      example = [ "alice@example.com" ];
      description = ''
        Tailnet logins that may edit even without a grant in the tailnet policy (for
        tailnets without app grants). Tagged devices never edit. Needs editing.enable.
      '';
    };

    guestMenu.funnel.enable = mkOption {
      type = types.bool;
      default = false;
      description = ''
        Serve the guests' menu (/menu and its files, nothing else: no API, no other page,
        no identity) to the internet through Tailscale Funnel, at
        https://<hostname>.<tailnet>.ts.net:8443/menu, for guests who are not on your
        tailnet. The tailnet policy must give this node the "funnel" node attribute
        (nodeAttrs); :443 and :80 are never opened to Funnel. Turn it off here (or switch
        the menu off in the app): nothing then listens on 8443 and the node's serve config
        lets no Funnel in.
      '';
    };

    extraArgs = mkOption {
      type = types.listOf types.str;
      default = [ ];
      example = [
        "--ephemeral"
        "--log-level"
        "libations=debug,info"
      ];
      description = "Extra command-line arguments for libations.";
    };

    memoryHigh = mkOption {
      type = types.nullOr types.str;
      default = "384M";
      example = "256M";
      description = ''
        systemd MemoryHigh: above this the service is slowed and its memory reclaimed. The
        server holds ~40-60 MB for a few thousand recipes, plus at most 128 MiB of answers
        waiting for slow readers (--max-unsent-bytes). null: no limit.
      '';
    };

    memoryMax = mkOption {
      type = types.nullOr types.str;
      default = "512M";
      description = "systemd MemoryMax: the service is killed (and restarted) above this. null: no limit.";
    };

    tasksMax = mkOption {
      type = types.nullOr types.ints.positive;
      default = 256;
      description = ''
        systemd TasksMax: threads at most (tokio's workers and blocking pool, Go's runtime).
        null: systemd's default.
      '';
    };
  };

  config = lib.mkIf cfg.enable {
    assertions = [
      {
        assertion = keyFile == null || isOutsideStore keyFile;
        message = "services.libations.tailscaleKeyFile must be an absolute path outside the Nix store (such as \"/run/agenix/libations-tailscale-key\"), got ${toString keyFile}.";
      }
      {
        assertion = cfg.metrics.address == null || metricsPort != null;
        message = "services.libations.metrics.address must be IP:PORT, such as \"127.0.0.1:9090\" or \"[::]:9090\", got \"${toString cfg.metrics.address}\".";
      }
      {
        assertion = cfg.editing.editors == [ ] || cfg.editing.enable;
        message = "services.libations.editing.editors needs services.libations.editing.enable = true.";
      }
      {
        assertion = !cfg.metrics.openFirewall || cfg.metrics.address != null;
        message = "services.libations.metrics.openFirewall needs services.libations.metrics.address: there is no metrics port to open.";
      }
    ];

    networking.firewall.allowedTCPPorts = lib.optional (cfg.metrics.openFirewall && metricsPort != null) metricsPort;

    systemd.services.libations = {
      description = "Libations cocktail recipes on the tailnet";
      wantedBy = [ "multi-user.target" ];
      wants = [ "network-online.target" ];
      after = [ "network-online.target" ];
      # A credential is a copy made at start, immutable while the service runs: a new
      # secret needs a restart. A plain file is re-read in place: a reload is enough.
      # With editing, recipesFile only seeds the state directory once: a change to it
      # needs neither.
      restartTriggers = lib.optional (
        cfg.recipesFile != null && cfg.recipesFileIsSecret && !cfg.editing.enable
      ) cfg.recipesFile;
      reloadTriggers = lib.optional (
        cfg.recipesFile != null && !cfg.recipesFileIsSecret && !cfg.editing.enable
      ) cfg.recipesFile;

      serviceConfig = {
        # %S/libations is StateDirectory below: /var/lib/libations (a link into
        # /var/lib/private with DynamicUser). Written unescaped: escapeSystemdExecArgs
        # would turn the % into %%.
        ExecStart = "${lib.getExe cfg.package} --state-dir %S/libations ${
          lib.optionalString cfg.editing.enable "--recipes-file %S/libations/recipes.json "
        }${utils.escapeSystemdExecArgs args}";
        # SIGHUP: re-read the recipes; a bad file is rejected and the old recipes stay.
        ExecReload = "${pkgs.coreutils}/bin/kill -HUP $MAINPID";
        Restart = "always";
        RestartSec = "5s";

        DynamicUser = true;
        # The Go version's module used the same directory: its node state, in
        # tsnet-libations/ here, is adopted on the first start (docs/DEPLOYING.md). The
        # household (shelf, favourites, ratings, notes) is household.sqlite in it too:
        # back up /var/lib/libations (docs/HOUSEHOLD.md, "Where it lives").
        StateDirectory = "libations";
        StateDirectoryMode = "0700";
        LoadCredential =
          lib.optional (keyFile != null) "auth-key:${keyFile}"
          ++ lib.optional (cfg.recipesFile != null && cfg.recipesFileIsSecret) "recipes.json:${cfg.recipesFile}";

        # Hardening. The node is userspace Tailscale (netstack): no TUN device, no
        # capabilities, only UDP/TCP sockets plus netlink for route monitoring.
        CapabilityBoundingSet = "";
        AmbientCapabilities = "";
        NoNewPrivileges = true;
        ProtectSystem = "strict";
        ProtectHome = true;
        PrivateTmp = true;
        PrivateDevices = true;
        PrivateUsers = true;
        ProtectHostname = true;
        ProtectClock = true;
        ProtectKernelTunables = true;
        ProtectKernelModules = true;
        ProtectKernelLogs = true;
        ProtectControlGroups = true;
        # Other processes are hidden, but not /proc/net: ProcSubset=pid would hide
        # /proc/net/route, which Tailscale reads to find the home router for NAT-PMP/PCP/
        # UPnP port mapping (better direct connections). See nixos/README.md.
        ProtectProc = "invisible";
        RestrictAddressFamilies = [
          "AF_INET"
          "AF_INET6"
          "AF_UNIX"
          "AF_NETLINK"
        ];
        RestrictNamespaces = true;
        RestrictRealtime = true;
        RestrictSUIDSGID = true;
        LockPersonality = true;
        MemoryDenyWriteExecute = true;
        RemoveIPC = true;
        SystemCallArchitectures = "native";
        # Go raises RLIMIT_NOFILE with prlimit64 (in @default), not setrlimit (@resources).
        SystemCallFilter = [
          "@system-service"
          "~@privileged"
          "~@resources"
        ];
        SystemCallErrorNumber = "EPERM";
        UMask = "0077";
      }
      // lib.optionalAttrs (cfg.memoryHigh != null) { MemoryHigh = cfg.memoryHigh; }
      // lib.optionalAttrs (cfg.memoryMax != null) { MemoryMax = cfg.memoryMax; }
      // lib.optionalAttrs (cfg.tasksMax != null) { TasksMax = cfg.tasksMax; };
    };
  };
}
