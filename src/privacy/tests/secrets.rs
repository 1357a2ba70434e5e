//! The secret scrubber: its catalogue, one positive and one negative test per kind, and the
//! shapes found by the hardening audit.

use super::*;

// -- secret scrubber: catalogue ------------------------------------------------------------

#[test]
fn secret_kinds_are_sorted_kebab_case_and_all_have_rules() {
    let kinds = secret_kinds();
    assert!(kinds.len() >= 18, "only {} kinds", kinds.len());
    assert!(kinds.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
    for kind in kinds {
        assert!(
            kind.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{kind} is not kebab-case"
        );
        assert!(RULES.iter().any(|r| r.kind == *kind), "{kind} has no rule");
    }
    for rule in RULES.iter() {
        assert!(kinds.contains(&rule.kind), "{} missing from secret_kinds()", rule.kind);
    }
}

#[test]
fn findings_are_per_kind_sorted_and_counted() {
    let input = format!("{NPM} {GITHUB} {AWS_ACCESS} {GITHUB}\npassword=hunter2");
    let (_, findings) = scrub_secrets(&input);
    let got: Vec<(&str, usize)> = findings.iter().map(|f| (f.kind, f.count)).collect();
    assert_eq!(
        got,
        [("aws-access-key", 1), ("github-token", 2), ("npm-token", 1), ("password-assignment", 1)]
    );
}

#[test]
fn harmless_text_is_untouched() {
    let text = format!(
        "commit {GIT_SHA} fixed the race; request id {UUID}.\n\
         Embedded logo: {PNG_PREFIX}\n\
         Clone ssh://git@github.com:22/acme/app.git or git@github.com:acme/app.git.\n\
         Docs at https://user@docs.example.com/path?q=1#frag and http://localhost:8080/a@b.\n\
         Mail josh@example.com. Use AKIA keys only in CI; sk-123 is a ticket; ghp_ marks PATs.\n\
         The password field is required. Reset your password. The token expires.\n\
         Bearer tokens go in the Authorization header. Stripe keys start with sk_live_.\n\
         -----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n\
         max_tokens=1000 bypass=1 PWD=/home/josh OLDPWD=/tmp password_hint=blue\n\
         é🙂 <input type=\"password\" name=\"password\">"
    );
    assert_kept(&text);
}

// -- one positive and one negative test per kind ------------------------------------------

#[test]
fn private_key_is_caught() {
    let input = "deploy key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5AAAAI\n-----END OPENSSH PRIVATE KEY-----\nrotate monthly";
    assert_caught(input, "deploy key:\n«redacted:private-key»\nrotate monthly", "private-key");
    for header in ["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY"] {
        let input = format!("a -----BEGIN {header}-----\nMIIE\n-----END {header}----- b");
        assert_caught(&input, "a «redacted:private-key» b", "private-key");
    }
    let pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----";
    assert_caught(pgp, "«redacted:private-key»", "private-key");
    // Escaped newlines inside a JSON string.
    assert_caught(
        r#"{"key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"}"#,
        r#"{"key": "«redacted:private-key»\n"}"#,
        "private-key",
    );
}

#[test]
fn truncated_private_key_redacts_to_end() {
    assert_caught(
        "key: -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nand the paste was cut",
        "key: «redacted:private-key»",
        "private-key",
    );
}

#[test]
fn private_key_lookalikes_are_kept() {
    assert_kept("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYI\n-----END PUBLIC KEY-----");
    assert_kept("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----");
    assert_kept("Store the private key in ~/.ssh/id_ed25519, never in the repo.");
    assert_kept("BEGIN PRIVATE KEY without the dashes is prose");
}

#[test]
fn aws_access_key_is_caught() {
    assert_caught(
        &format!("id {AWS_ACCESS} in us-east-1"),
        "id «redacted:aws-access-key» in us-east-1",
        "aws-access-key",
    );
    assert_caught("ASIAY34FZKBOKMUTVV7A,", "«redacted:aws-access-key»,", "aws-access-key");
}

#[test]
fn aws_access_key_lookalikes_are_kept() {
    assert_kept("Access key ids start with AKIA or ASIA.");
    assert_kept("AKIAIOSFODNN7EXAMPLEX is 21 characters");
    assert_kept("akiaiosfodnn7example in lower case");
    assert_kept("AKIA1234");
}

#[test]
fn aws_secret_key_is_caught() {
    assert_caught(
        &format!("aws_secret_access_key = {AWS_SECRET}\nregion = eu-west-1"),
        "aws_secret_access_key = «redacted:aws-secret-key»\nregion = eu-west-1",
        "aws-secret-key",
    );
    assert_caught(
        &format!("export AWS_SECRET_ACCESS_KEY={AWS_SECRET}"),
        "export AWS_SECRET_ACCESS_KEY=«redacted:aws-secret-key»",
        "aws-secret-key",
    );
    assert_caught(
        &format!(r#"{{"SecretAccessKey": "{AWS_SECRET}"}}"#),
        r#"{"SecretAccessKey": "«redacted:aws-secret-key»"}"#,
        "aws-secret-key",
    );
}

#[test]
fn aws_secret_key_lookalikes_are_kept() {
    assert_kept(&format!("aws_secret_access_key is not {GIT_SHA}x"));
    assert_kept("aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}");
    assert_kept("set aws_secret_access_key in ~/.aws/credentials");
}

#[test]
fn github_token_is_caught() {
    assert_caught(
        &format!("token {GITHUB} works"),
        "token «redacted:github-token» works",
        "github-token",
    );
    assert_caught(&format!("pat={GITHUB_PAT}"), "pat=«redacted:github-token»", "github-token");
    // Assigned to a secret-looking key: reported once, as what it is.
    assert_caught(
        &format!("GITHUB_TOKEN={GITHUB}"),
        "GITHUB_TOKEN=«redacted:github-token»",
        "github-token",
    );
}

#[test]
fn github_token_lookalikes_are_kept() {
    assert_kept("Classic tokens start with ghp_ and fine-grained ones with github_pat_.");
    assert_kept("ghp_short and ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8 (35 chars)");
    assert_kept(&format!("merged in {GIT_SHA}"));
}

#[test]
fn gitlab_token_is_caught() {
    assert_caught(
        &format!("CI uses {GITLAB} today"),
        "CI uses «redacted:gitlab-token» today",
        "gitlab-token",
    );
}

#[test]
fn gitlab_token_lookalikes_are_kept() {
    assert_kept("GitLab personal tokens look like glpat- followed by 20 characters.");
    assert_kept("glpat-short");
}

#[test]
fn slack_token_is_caught() {
    assert_caught(&format!("bot {SLACK}"), "bot «redacted:slack-token»", "slack-token");
    assert_caught(
        "xapp-1-A0123ABCDEF-1234567890123-0a1b2c3d4e5f",
        "«redacted:slack-token»",
        "slack-token",
    );
}

#[test]
fn slack_token_lookalikes_are_kept() {
    assert_kept("xoxo, hugs. Bot tokens begin with xoxb- and user tokens with xoxp-.");
    assert_kept("xoxb-not-a-token");
}

#[test]
fn slack_webhook_is_caught() {
    assert_caught(
        &format!("POST to {SLACK_WEBHOOK} on deploy"),
        "POST to «redacted:slack-webhook» on deploy",
        "slack-webhook",
    );
}

#[test]
fn slack_webhook_lookalikes_are_kept() {
    assert_kept("See https://api.slack.com/messaging/webhooks for setup.");
    assert_kept("Webhooks live under https://hooks.slack.com/services/ in Slack.");
}

#[test]
fn stripe_key_is_caught() {
    assert_caught(&format!("key {STRIPE}"), "key «redacted:stripe-key»", "stripe-key");
    assert_scrubbed(
        &format!("{STRIPE_WEBHOOK} rk_test_edUStPKR0CsTy4Qwb8Dw"),
        "«redacted:stripe-key» «redacted:stripe-key»",
        "stripe-key",
        2,
    );
}

#[test]
fn stripe_key_lookalikes_are_kept() {
    // Publishable keys are meant to be public.
    assert_kept("pk_live_edUStPKR0CsTy4Qwb8DwkNhF is the publishable key");
    assert_kept("Secret keys start with sk_live_ or sk_test_; sk_test_123 is too short.");
}

#[test]
fn openai_key_is_caught() {
    assert_caught(&format!("key: {OPENAI}!"), "key: «redacted:openai-key»!", "openai-key");
    assert_caught(&format!("({OPENAI_LEGACY})"), "(«redacted:openai-key»)", "openai-key");
}

#[test]
fn openai_key_lookalikes_are_kept() {
    assert_kept("sk-123 and sk-learn are not keys; neither is task-force.");
    assert_kept("sk-this-is-just-a-long-kebab-case-slug-name");
    assert_kept("disk-abcdefghijklmnopqrstuvwxyz0123456789ABCD");
}

#[test]
fn anthropic_key_is_caught() {
    assert_caught(
        &format!("ANTHROPIC {ANTHROPIC} end"),
        "ANTHROPIC «redacted:anthropic-key» end",
        "anthropic-key",
    );
}

#[test]
fn anthropic_key_lookalikes_are_kept() {
    assert_kept("Anthropic keys start with sk-ant-api03- and are long.");
    assert_kept("sk-ant-api03-short");
}

#[test]
fn google_api_key_is_caught() {
    assert_caught(
        &format!("maps key={GOOGLE}&v=3"),
        "maps key=«redacted:google-api-key»&v=3",
        "google-api-key",
    );
    assert_caught(GOOGLE, "«redacted:google-api-key»", "google-api-key");
}

#[test]
fn google_api_key_lookalikes_are_kept() {
    assert_kept("Browser keys begin with AIza; AIzaShortThing is not one.");
    assert_kept(&format!("{GOOGLE}xyz is too long to be a key"));
}

#[test]
fn npm_token_is_caught() {
    assert_caught(
        &format!("//registry.npmjs.org/:_authToken {NPM}"),
        "//registry.npmjs.org/:_authToken «redacted:npm-token»",
        "npm-token",
    );
}

#[test]
fn npm_token_lookalikes_are_kept() {
    assert_kept("npm_config_registry=https://registry.npmjs.org/ npm_package_version=1.2.3");
    assert_kept("npm_ tokens are 40 characters");
}

#[test]
fn pypi_token_is_caught() {
    assert_caught(
        &format!("twine upload -p {PYPI} dist/*"),
        "twine upload -p «redacted:pypi-token» dist/*",
        "pypi-token",
    );
}

#[test]
fn pypi_token_lookalikes_are_kept() {
    assert_kept("pip install pypi-simple; tokens start with pypi-AgEIcHlwaS5vcmc.");
}

#[test]
fn huggingface_token_is_caught() {
    assert_caught(
        &format!("HF {HUGGINGFACE}."),
        "HF «redacted:huggingface-token».",
        "huggingface-token",
    );
}

#[test]
fn huggingface_token_lookalikes_are_kept() {
    assert_kept("call hf_hub_download() with hf_transfer enabled");
    assert_kept("hf_abc");
}

#[test]
fn sendgrid_key_is_caught() {
    assert_caught(
        &format!("mail via \"{SENDGRID}\""),
        "mail via \"«redacted:sendgrid-key»\"",
        "sendgrid-key",
    );
}

#[test]
fn sendgrid_key_lookalikes_are_kept() {
    assert_kept("SG.1 is a section number and SG.Tech a company.");
    assert_kept("SG.n3_YNBDRzrZSgqbjG3uhkW.tooShort");
}

#[test]
fn twilio_key_is_caught() {
    assert_caught(&format!("sid {TWILIO}"), "sid «redacted:twilio-key»", "twilio-key");
}

#[test]
fn twilio_key_lookalikes_are_kept() {
    assert_kept("SKU12345 and SK-1234 are product codes");
    // Account SIDs are identifiers, not secrets; bare MD5 sums are hashes.
    assert_kept("account ACaf4941d4072014b3ce107f80e222f828, md5 af4941d4072014b3ce107f80e222f828");
    assert_kept("SKAF4941D4072014B3CE107F80E222F828ZZ");
}

#[test]
fn digitalocean_token_is_caught() {
    assert_caught(
        &format!("doctl auth init -t {DIGITALOCEAN}"),
        "doctl auth init -t «redacted:digitalocean-token»",
        "digitalocean-token",
    );
}

#[test]
fn digitalocean_token_lookalikes_are_kept() {
    assert_kept("DigitalOcean tokens start with dop_v1_; dop_v1_abc is not one.");
}

#[test]
fn azure_storage_key_is_caught() {
    let input = format!(
        "DefaultEndpointsProtocol=https;AccountName=devstoreaccount1;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net"
    );
    assert_caught(
        &input,
        "DefaultEndpointsProtocol=https;AccountName=devstoreaccount1;AccountKey=«redacted:azure-storage-key»;EndpointSuffix=core.windows.net",
        "azure-storage-key",
    );
}

#[test]
fn azure_storage_key_lookalikes_are_kept() {
    assert_kept("AccountName=devstoreaccount1;AccountKey=<storage-account-key>;");
    assert_kept("AccountKey=abc123 is too short to be a storage key");
}

#[test]
fn jwt_is_caught() {
    assert_caught(&format!("session={JWT}"), "session=«redacted:jwt»", "jwt");
    // A JWT after `Bearer` is reported as a JWT, once.
    assert_caught(
        &format!("Authorization: Bearer {JWT}"),
        "Authorization: Bearer «redacted:jwt»",
        "jwt",
    );
}

#[test]
fn jwt_lookalikes_are_kept() {
    assert_kept("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 is just a base64 header");
    assert_kept("version 1.2.3 and a.b.c and eyJ.eyJ.x");
}

#[test]
fn bearer_token_is_caught() {
    assert_caught(
        "Authorization: Bearer 4f9a8c1e2b7d6a5f3e0c9b8a7d6e5f4a3b2c1d0e\n",
        "Authorization: Bearer «redacted:bearer-token»\n",
        "bearer-token",
    );
    assert_caught(
        "curl -H 'authorization: bearer AbCdEfGhIjKlMnOpQrStUvWx'",
        "curl -H 'authorization: bearer «redacted:bearer-token»'",
        "bearer-token",
    );
}

#[test]
fn bearer_token_lookalikes_are_kept() {
    assert_kept("Send a bearer token in the Authorization header.");
    assert_kept("Authorization: Bearer <token>");
    assert_kept("Authorization: Bearer $TOKEN and Bearer ${API_TOKEN}");
    assert_kept("the bearer abcdefghijklmnopqrstuvwxyz is prose");
}

#[test]
fn connection_string_is_caught() {
    let cases = [
        (
            "postgres://app:s3cr3t@db.internal:5432/app",
            "postgres://app:«redacted:connection-string»@db.internal:5432/app",
        ),
        (
            "DATABASE_URL=postgresql://u:p%40ss@localhost/db?sslmode=require",
            "DATABASE_URL=postgresql://u:«redacted:connection-string»@localhost/db?sslmode=require",
        ),
        (
            "mysql://root:toor@127.0.0.1:3306/shop",
            "mysql://root:«redacted:connection-string»@127.0.0.1:3306/shop",
        ),
        (
            "mongodb+srv://admin:Pa55w0rd@cluster0.x1y2z.mongodb.net/test",
            "mongodb+srv://admin:«redacted:connection-string»@cluster0.x1y2z.mongodb.net/test",
        ),
        ("redis://:hunter2@cache:6379/0", "redis://:«redacted:connection-string»@cache:6379/0"),
        (
            "amqp://guest:guest@rabbit:5672/",
            "amqp://guest:«redacted:connection-string»@rabbit:5672/",
        ),
        (
            "jdbc:postgresql://bob:pa@ss@db/x",
            "jdbc:postgresql://bob:«redacted:connection-string»@db/x",
        ),
    ];
    for (input, expected) in cases {
        assert_caught(input, expected, "connection-string");
    }
}

#[test]
fn connection_string_lookalikes_are_kept() {
    assert_kept("postgres://app@db.internal:5432/app");
    assert_kept("https://user@docs.example.com/path and ssh://git@github.com:22/o/r.git");
    assert_kept("https://example.com:8443/path?email=a@b.com");
    assert_kept("postgres://app:${DB_PASSWORD}@db/app");
    assert_kept("postgres://app:<password>@db/app and mysql://root:****@db/x");
    assert_kept("redis://cache:6379/0");
}

#[test]
fn password_assignment_is_caught() {
    let cases = [
        ("password=hunter2", "password=«redacted:password-assignment»"),
        ("export DB_PASSWORD=hunter2", "export DB_PASSWORD=«redacted:password-assignment»"),
        ("passwd: hunter2", "passwd: «redacted:password-assignment»"),
        ("  - secret: s3cr3t-value # prod", "  - secret: «redacted:password-assignment» # prod"),
        ("api_key = \"abc123def456\"", "api_key = \"«redacted:password-assignment»\""),
        ("token=abc123", "token=«redacted:password-assignment»"),
        (
            r#"{"user": "bob", "password": "hun\"ter2"}"#,
            r#"{"user": "bob", "password": "«redacted:password-assignment»"}"#,
        ),
        (r#"{\"password\":\"hunter2\"}"#, r#"{\"password\":\"«redacted:password-assignment»\"}"#),
        ("mysql --password=hunter2 db", "mysql --password=«redacted:password-assignment» db"),
        ("DB_PASS=hunter2", "DB_PASS=«redacted:password-assignment»"),
        ("client_secret='abc'", "client_secret='«redacted:password-assignment»'"),
        ("'password' => 'x1'", "'password' => '«redacted:password-assignment»'"),
        (
            "pw := \"x\"; Password := \"x1\"",
            "pw := \"x\"; Password := \"«redacted:password-assignment»\"",
        ),
        (
            "cb?access_token=abc123&state=1",
            "cb?access_token=«redacted:password-assignment»&state=1",
        ),
        (
            "Server=db;Password=p;User Id=sa",
            "Server=db;Password=«redacted:password-assignment»;User Id=sa",
        ),
        ("X-Api-Key: 0123abcd\r\nHost: x", "X-Api-Key: «redacted:password-assignment»\r\nHost: x"),
        ("PASSWORD=password", "PASSWORD=«redacted:password-assignment»"),
    ];
    for (input, expected) in cases {
        assert_caught(input, expected, "password-assignment");
    }
    assert_scrubbed(
        "DB_PASSWORD=a1\nREDIS_PASSWORD=b2\nAPI_TOKEN=c3\nHOST=x",
        "DB_PASSWORD=«redacted:password-assignment»\nREDIS_PASSWORD=«redacted:password-assignment»\nAPI_TOKEN=«redacted:password-assignment»\nHOST=x",
        "password-assignment",
        3,
    );
}

#[test]
fn password_assignment_lookalikes_are_kept() {
    let kept = [
        "the password field is required",
        "Reset your password, then log in.",
        "Password: must be at least 8 characters",
        "Password: required",
        "password=",
        "password= ",
        "password=\nnext line",
        "password=${DB_PASSWORD}",
        "password=$DB_PASSWORD",
        "password=<your-password>",
        "password=****",
        "password: \"\"",
        "\"password\": null",
        "\"password\": \"\"",
        "password = os.getenv(\"DB_PASSWORD\")",
        "token = settings.api.token",
        "password_file=/run/secrets/db",
        "api_key: YOUR_API_KEY",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "password: !vault |",
        "if password == \"x\" or password != y",
        "the token=value pairs",
        "max_tokens=1000 bypass=1 compass=north password_hint=blue",
        "PWD=/home/josh OLDPWD=/tmp",
        "<input type=\"password\" name=\"password\">",
        "password=[redacted]",
    ];
    for input in kept {
        assert_kept(input);
    }
}

// -- shapes found by the hardening audit -----------------------------------------

pub(super) const UNSIGNED_JWT: &str =
    "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIxMjM0NTY3ODkwIiwiYWRtaW4iOnRydWV9.";
const PUTTY: &str = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20240101\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIBxN0pJ4Bqv6dZ2rZ\nPrivate-Lines: 1\nAAAAIGx1c2VyQGhvc3QAAAAgdGVzdA\nPrivate-MAC: 8f3e2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7";
const GCP_KEY_ID: &str = "4f6a9d1c2b3e8f7a6d5c4b3a2f1e0d9c8b7a6f5e";

#[test]
fn long_password_flag_is_caught() {
    assert_caught(
        "mysql --password hunter2 shop",
        "mysql --password «redacted:password-flag» shop",
        "password-flag",
    );
    assert_caught(
        "vault login --token 'Xy7pQ2Lm9Rt4wz'",
        "vault login --token '«redacted:password-flag»'",
        "password-flag",
    );
    assert_caught(
        "deploy --db-password \"p4ss w0rd\" --yes",
        "deploy --db-password \"«redacted:password-flag»\" --yes",
        "password-flag",
    );
}

#[test]
fn long_password_flag_lookalikes_are_kept() {
    assert_kept("echo $PW | docker login --password-stdin registry.example.com");
    assert_kept("mysql --password $DB_PASSWORD shop");
    assert_kept("run --password-file /run/secrets/db --token-file ./token");
    assert_kept("llm --max-tokens 1000 --token-limit 20");
    assert_kept("read it with --password - from standard input");
}

#[test]
fn mysql_glued_password_is_caught() {
    assert_caught(
        "mysql -uroot -phunter2 shop",
        "mysql -uroot -p«redacted:password-flag» shop",
        "password-flag",
    );
    assert_caught(
        "mysqldump -h db -u app -p'S3cr3t!' shop > dump.sql",
        "mysqldump -h db -u app -p'«redacted:password-flag»' shop > dump.sql",
        "password-flag",
    );
}

#[test]
fn mysql_glued_password_lookalikes_are_kept() {
    assert_kept("mysql -u root -p shop");
    assert_kept("mysql -h db -P3306 --protocol=tcp shop");
    assert_kept("gcc -pthread -pedantic main.c");
    assert_kept("ssh -p2222 deploy@host");
}

#[test]
fn docker_login_password_is_caught() {
    assert_caught(
        "docker login -u ci -p Sup3rS3cret registry.example.com",
        "docker login -u ci -p «redacted:password-flag» registry.example.com",
        "password-flag",
    );
    assert_caught(
        "podman login --username ci -p=abc123XYZ quay.io",
        "podman login --username ci -p=«redacted:password-flag» quay.io",
        "password-flag",
    );
}

#[test]
fn docker_login_password_lookalikes_are_kept() {
    assert_kept("docker run -p 8080:80 nginx");
    assert_kept("ssh -p 2222 deploy@host");
    assert_kept("mkdir -p build && docker build -t app .");
    assert_kept("docker login -u ci -p $CI_REGISTRY_PASSWORD registry.example.com");
}

#[test]
fn password_in_prose_is_caught() {
    assert_caught(
        "the root password is hunter2 for staging",
        "the root password is «redacted:password-prose» for staging",
        "password-prose",
    );
    assert_caught(
        "Staging DB password: Tr0ub4dor&3, rotate monthly",
        "Staging DB password: «redacted:password-prose», rotate monthly",
        "password-prose",
    );
    assert_caught(
        "The password for the VPN was 'S3cret!pass'.",
        "The password for the VPN was '«redacted:password-prose»'.",
        "password-prose",
    );
    assert_caught(
        "wifi passphrase is now CorrectHorse9.",
        "wifi passphrase is now «redacted:password-prose».",
        "password-prose",
    );
}

#[test]
fn password_in_prose_lookalikes_are_kept() {
    for input in [
        "the password policy requires 12 characters",
        "the password policy is strict",
        "the password is required",
        "The password is too short.",
        "the password is stored in 1Password",
        "password is 8 characters",
        "Password: must be at least 8 characters",
        "Password: see the team vault.",
        "the password is `$DB_PASSWORD`",
    ] {
        assert_kept(input);
    }
}

#[test]
fn basic_auth_is_caught() {
    assert_caught(
        "Authorization: Basic dXNlcjpodW50ZXIy\r\n",
        "Authorization: Basic «redacted:basic-auth»\r\n",
        "basic-auth",
    );
    assert_caught(
        "curl -H 'authorization: basic YWRtaW46czNjcjN0' https://api",
        "curl -H 'authorization: basic «redacted:basic-auth»' https://api",
        "basic-auth",
    );
}

#[test]
fn basic_auth_lookalikes_are_kept() {
    assert_kept("Basic auth is configured in nginx.");
    assert_kept("Authorization: Basic <credentials>");
    assert_kept("Authorization: Basic $CREDENTIALS");
    assert_kept("send Authorization: Basic base64(user:pass)");
    assert_kept("WWW-Authenticate: Basic realm=\"api\"");
}

#[test]
fn unsigned_jwt_is_caught() {
    assert_caught(
        &format!("token {UNSIGNED_JWT} in the log"),
        "token «redacted:jwt» in the log",
        "jwt",
    );
    assert_caught(&format!("jwt={UNSIGNED_JWT}"), "jwt=«redacted:jwt»", "jwt");
}

#[test]
fn unsigned_jwt_lookalikes_are_kept() {
    assert_kept("eyJ.eyJ. is how an unsigned token starts");
    assert_kept("see config.eyJhbGciOiJub25lIn0.yaml");
}

#[test]
fn bare_aws_secret_key_is_caught() {
    assert_caught(
        &format!("a bare 40-character string {AWS_SECRET} has no key name"),
        "a bare 40-character string «redacted:aws-secret-key» has no key name",
        "aws-secret-key",
    );
    assert_caught(
        "the secret is 9dKq2LmN4pRt7VxZ1bCf5gHj8kMn3QsW6yAe0uIo.",
        "the secret is «redacted:aws-secret-key».",
        "aws-secret-key",
    );
}

#[test]
fn bare_aws_secret_key_lookalikes_are_kept() {
    let camel = "ConfigurationManagerFactoryBuilderImpl2X";
    let path = "src/Components/Button2/Index/FooBarBazQx";
    let padded = "QmFzZTY0IGVuY29kZWQgdGV4dCB3aXRoIHBhZGRpbmcgaGVyZQ==";
    assert_eq!((camel.len(), path.len()), (40, 40));
    assert_kept(&format!("commit {GIT_SHA} and class {camel}"));
    assert_kept(&format!("open {path} or the blob {padded}"));
    assert_kept(&format!("AWS_{AWS_SECRET}_BACKUP is an identifier"));
    let cert = format!(
        "-----BEGIN CERTIFICATE-----\n{}\n9dKq2LmN4pRt7VxZ1bCf5gHj8kMn3QsW6yAe0uIo\n-----END CERTIFICATE-----",
        "MIIBszCCAVmgAwIBAgIUQmFzZTY0IGVuY29kZWQgdGV4dCB3aXRoIHBhZGRpbmcg"
    );
    assert_kept(&cert);
}

#[test]
fn tokens_glued_to_underscores_are_caught() {
    assert_caught(
        &format!("key_{GITHUB} in CI"),
        "key_«redacted:github-token» in CI",
        "github-token",
    );
    // Key characters include `_`, so a suffix glued with `_` goes with the key.
    assert_caught(&format!("foo_{OPENAI_LEGACY}_prod"), "foo_«redacted:openai-key»", "openai-key");
    assert_caught(&format!("{GITHUB}_prod"), "«redacted:github-token»_prod", "github-token");
    assert_caught(
        &format!("AWS_{AWS_ACCESS}_ID"),
        "AWS_«redacted:aws-access-key»_ID",
        "aws-access-key",
    );
    assert_caught(&format!("cache_{NPM}"), "cache_«redacted:npm-token»", "npm-token");
}

#[test]
fn ordinary_words_next_to_underscores_are_kept() {
    assert_kept("snake_case_ghp_short and my_sk-learn_model");
    assert_kept("max_tokens_npm_run_build hf_hub_download_AKIA_docs");
    assert_kept("__init__ and _private_helper and sk_live_ prefixes");
}

#[test]
fn url_password_with_a_slash_is_caught() {
    assert_caught(
        "postgres://app:pa/ss@db.internal:5432/app",
        "postgres://app:«redacted:connection-string»@db.internal:5432/app",
        "connection-string",
    );
    assert_caught(
        "redis://:s3cr/et+x@cache:6379/0",
        "redis://:«redacted:connection-string»@cache:6379/0",
        "connection-string",
    );
}

#[test]
fn url_password_with_a_slash_lookalikes_are_kept() {
    assert_kept("http://localhost:8080/a@b and https://registry.npmjs.org:443/@scope/pkg");
    assert_kept("https://example.com/users/@josh and git+ssh://git@host:org/repo.git");
    assert_kept("postgres://app:${DB_PASS}/x@db/app");
}

#[test]
fn putty_private_key_is_caught() {
    assert_caught(
        &format!("ppk:\n{PUTTY}\nload it in pageant"),
        "ppk:\n«redacted:private-key»\nload it in pageant",
        "private-key",
    );
    // Truncated before the MAC: redacted to the end.
    assert_caught(
        "key:\nPuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPublic-Lines: 6\nAAAAB3Nza",
        "key:\n«redacted:private-key»",
        "private-key",
    );
}

#[test]
fn putty_private_key_lookalikes_are_kept() {
    assert_kept("Convert it with puttygen; files start with `PuTTY-User-Key-File-3:`.");
    assert_kept("Save it as a PuTTY-User-Key-File (.ppk).");
}

#[test]
fn gcp_private_key_id_is_caught() {
    assert_caught(
        &format!(
            r#"{{"type": "service_account", "private_key_id": "{GCP_KEY_ID}", "client_email": "svc@p.iam.gserviceaccount.com"}}"#
        ),
        r#"{"type": "service_account", "private_key_id": "«redacted:gcp-private-key-id»", "client_email": "svc@p.iam.gserviceaccount.com"}"#,
        "gcp-private-key-id",
    );
    assert_caught(
        &format!("private_key_id: {GCP_KEY_ID}\n"),
        "private_key_id: «redacted:gcp-private-key-id»\n",
        "gcp-private-key-id",
    );
}

#[test]
fn gcp_private_key_id_lookalikes_are_kept() {
    assert_kept("the private_key_id field names the key in the service account file");
    assert_kept("private_key_id: ${GCP_KEY_ID}");
    assert_kept(r#""private_key_id": "<key-id>""#);
}

#[test]
fn plain_words_match_no_rule() {
    // The fast path of `scrub_secrets` skips these; no rule may match any of them.
    const PIECES: &[&str] = &[
        "xoxb-1-", "xoxp-12-", "sk-", "sk_live_", "ghp_", "npm_", "hf_", "AKIA", "SK", "SG.",
        "eyJ", "gl", "pat-", "dop_v1_", "pypi-", "AIza", "a", "Z", "0", "9", "-", "_", ".", "/",
        "1234567", "abcdefgh", "ABCDEFGH", "mysql", "-p", "token", "password",
    ];
    let mut words = vec![String::new()];
    for _ in 0..3 {
        let next: Vec<String> =
            words.iter().flat_map(|w| PIECES.iter().map(move |p| format!("{w}{p}"))).collect();
        words.extend(next);
    }
    words.extend(["xoxb-1-1234567".to_owned(), "AKIA1234567890".to_owned()]);
    for w in words.iter().filter(|w| is_plain_word(w)) {
        for rule in RULES.iter() {
            assert!(rule.apply(w).is_none(), "{} matches the plain word {w:?}", rule.kind);
        }
    }
}
