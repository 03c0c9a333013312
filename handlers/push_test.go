package handlers

import (
	"context"
	"testing"
)

func TestPush(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		edit    func(m map[string]any)
		want    *pushCall
		wantErr bool
	}{
		{name: "branch push", file: "with-new-branch.payload.json",
			want: &pushCall{helloWorld, "master", "6113728f27ae82c7b1a177c8d03f9e96e0adf246"}},
		{name: "branch push without installation", file: "with-new-branch.payload.json",
			edit: func(m map[string]any) { delete(m, "installation") },
			want: &pushCall{helloWorld, "master", "6113728f27ae82c7b1a177c8d03f9e96e0adf246"}},
		{name: "nested branch name", file: "with-no-username-committer.payload.json",
			edit: func(m map[string]any) { m["ref"] = "refs/heads/release/1.x" },
			want: &pushCall{helloWorld, "release/1.x", "6113728f27ae82c7b1a177c8d03f9e96e0adf246"}},
		{name: "tag deletion ignored", file: "payload.json"},
		{name: "tag push ignored", file: "with-new-branch.payload.json",
			edit: func(m map[string]any) { m["ref"] = "refs/tags/v1" }},
		{name: "branch deletion ignored", file: "with-new-branch.payload.json", edit: func(m map[string]any) {
			m["deleted"] = true
			m["after"] = zeroSHA
		}},
		{name: "no repository", file: "with-new-branch.payload.json",
			edit: func(m map[string]any) { delete(m, "repository") }, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc := newFakeService()
			payload := loadExample(t, "push/"+tt.file)
			if tt.edit != nil {
				payload = patchJSON(t, payload, tt.edit)
			}
			err := NewPushHandler(testConfig(), svc).Handle(context.Background(), "push", "d", payload)
			if tt.wantErr {
				if !IsPermanent(err) {
					t.Fatalf("err = %v, want a permanent error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if len(svc.pushes) != 0 {
					t.Fatalf("pushes %+v, want none", svc.pushes)
				}
				return
			}
			if len(svc.pushes) != 1 || svc.pushes[0] != *tt.want {
				t.Fatalf("pushes %+v, want %+v", svc.pushes, *tt.want)
			}
		})
	}
}
