export namespace desktop {
	
	export class CallResult {
	    status: number;
	    body: string;
	
	    static createFrom(source: any = {}) {
	        return new CallResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.status = source["status"];
	        this.body = source["body"];
	    }
	}
	export class CaptureView {
	    opened: boolean;
	    file_name: string;
	    path: string;
	    reason?: string;
	
	    static createFrom(source: any = {}) {
	        return new CaptureView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.opened = source["opened"];
	        this.file_name = source["file_name"];
	        this.path = source["path"];
	        this.reason = source["reason"];
	    }
	}
	export class ExportOptions {
	    include_snapshots: boolean;
	    reset_mac_addresses: boolean;
	    include_images: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ExportOptions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.include_snapshots = source["include_snapshots"];
	        this.reset_mac_addresses = source["reset_mac_addresses"];
	        this.include_images = source["include_images"];
	    }
	}

}

